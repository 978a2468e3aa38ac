/**
 * The DynamoDB state table, and `grantStateAccess`, which gives the function its name and exactly
 * the actions the state store uses.
 */

import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { RUNTIME_ENV } from '../lambda/settings/index.js';

/**
 * The DynamoDB actions the state store (lambda/adapters/state/dynamodb/dynamodb-store.ts) uses, on the table only:
 * GetItem, Query, conditional PutItem, and BatchWriteItem of puts and deletes (a delete inside
 * BatchWriteItem needs only dynamodb:BatchWriteItem), and the conditional UpdateItem that counts
 * the events sent under a paging tool's key (dynamodb-send-slots.ts). No DeleteItem, no Scan, no
 * streams, no DDL.
 * A store that starts using another action must add it here.
 */
export const STATE_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:BatchWriteItem',
  'dynamodb:UpdateItem',
];

/** What a platform team may choose about the table (LeaseWatchdogProps says the defaults). */
export interface StateTableOptions {
  readonly removalPolicy?: RemovalPolicy | undefined;
  readonly deletionProtection?: boolean | undefined;
}

/** Creates its table in the given scope (construct id `StateTable`). */
export class StateTable {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, options: StateTableOptions = {}) {
    this.table = new dynamodb.Table(scope, 'StateTable', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      sortKey: { name: 'sk', type: dynamodb.AttributeType.STRING },
      timeToLiveAttribute: 'expiresAt',
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS-managed key (aws/dynamodb): encrypted at rest and auditable in CloudTrail, with no
      // key policy to maintain. The state holds lease times and incident bookkeeping only.
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      // The state holds open incidents and the outbox of notifications not yet accepted by SNS:
      // losing it loses alerts. Deleting the table takes two deliberate steps (turn protection
      // off, then delete), and deleting the stack keeps it, unless the props say otherwise.
      deletionProtection: options.deletionProtection ?? true,
      removalPolicy: options.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }

  /** Sets STATE_TABLE and allows `STATE_TABLE_ACTIONS` on the table. */
  grantStateAccess(fn: lambda.Function): void {
    fn.addEnvironment(RUNTIME_ENV.stateTable, this.table.tableName);
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'ReadWriteStateTable',
        actions: STATE_TABLE_ACTIONS,
        resources: [this.table.tableArn],
      }),
    );
  }
}
