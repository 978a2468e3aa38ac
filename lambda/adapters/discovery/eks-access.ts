/**
 * `discover.grantAccess`: the function lets itself into a discovered cluster with the two calls
 * it is allowed on matching clusters: eks:CreateAccessEntry (type STANDARD; an entry that exists,
 * ResourceInUseException, is kept) and eks:AssociateAccessPolicy of the read-only policy,
 * cluster-wide. In another account, both are made as that account's role, for that role.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  type EKSClient,
} from '@aws-sdk/client-eks';
import type { AccessTarget, ClusterAccess } from '../../ports/index.js';
import { ACCESS_POLICY } from '../../settings/access-policy.js';
import { describeAwsError, errorName } from '../kube/auth-error.js';

export class EksClusterAccess implements ClusterAccess {
  constructor(private readonly client: (target: AccessTarget) => EKSClient) {}

  async grant(target: AccessTarget, principalArn: string, signal?: AbortSignal): Promise<void> {
    const client = this.client(target);
    const options = signal ? { abortSignal: signal } : {};
    const { clusterName } = target;
    try {
      await client.send(
        new CreateAccessEntryCommand({ clusterName, principalArn, type: 'STANDARD' }),
        options,
      );
    } catch (error) {
      if (errorName(error) !== 'ResourceInUseException') {
        throw new Error(`eks:CreateAccessEntry failed (${describeAwsError(error)})`, {
          cause: error,
        });
      }
    }
    const partition = principalArn.split(':')[1] || 'aws';
    try {
      await client.send(
        new AssociateAccessPolicyCommand({
          clusterName,
          principalArn,
          policyArn: `arn:${partition}:eks::aws:cluster-access-policy/${ACCESS_POLICY}`,
          accessScope: { type: 'cluster' },
        }),
        options,
      );
    } catch (error) {
      throw new Error(`eks:AssociateAccessPolicy failed (${describeAwsError(error)})`, {
        cause: error,
      });
    }
  }
}
