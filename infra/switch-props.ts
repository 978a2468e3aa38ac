/**
 * The construct's switches that have no place in the deployment file: what becomes of the state
 * table when the stack goes, and whether the dashboard is made. Their defaults are what the stack
 * deploys from a file.
 */
import type { RemovalPolicy } from 'aws-cdk-lib';

export interface SwitchProps {
  /**
   * What CloudFormation does with the state table when it leaves the stack (the stack deleted,
   * the construct removed, or the table replaced). The table holds open incidents and the outbox
   * of notifications SNS has not yet accepted: losing it loses alerts.
   *
   * @default RemovalPolicy.RETAIN — the table outlives the stack; delete it yourself.
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
  /**
   * DynamoDB deletion protection on the state table: while on, nobody (CloudFormation included)
   * can delete it. A test or preview stack that must go away whole turns it off together with
   * `tableRemovalPolicy: RemovalPolicy.DESTROY`.
   *
   * @default true
   */
  readonly tableDeletionProtection?: boolean;
  /**
   * Make the CloudWatch dashboard (every cluster's checks, nodes, notifications and dead-man's
   * switch, and the alarms). `false` makes none; the alarms and metrics stay.
   *
   * @default true
   */
  readonly dashboard?: boolean;
}
