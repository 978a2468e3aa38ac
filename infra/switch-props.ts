/**
 * The construct's switches that have no place in the deployment file: what becomes of the state
 * table when the stack goes. Their defaults are what the stack deploys from a file. (The
 * dashboard is the file's `dashboard` setting, a prop like every setting.)
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
}
