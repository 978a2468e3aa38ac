/**
 * `discover.grantAccess`: the function lets itself into a discovered cluster with the one call it
 * is allowed on matching clusters: eks:CreateAccessEntry, type STANDARD, in the Kubernetes group
 * that deploy/rbac.yaml binds (KUBERNETES_GROUP: the Leases, Nodes and node Events, read-only),
 * no access policy; an entry that exists (ResourceInUseException) is kept. In another account, it
 * is made as that account's role, for that role.
 */
import { CreateAccessEntryCommand, type EKSClient } from '@aws-sdk/client-eks';
import type { AccessTarget, ClusterAccess } from '../../ports/index.js';
import { KUBERNETES_GROUP } from '../../settings/access-policy.js';
import { describeAwsError, errorName } from '../kube/config/auth-error.js';

export class EksClusterAccess implements ClusterAccess {
  constructor(private readonly client: (target: AccessTarget) => EKSClient) {}

  async grant(target: AccessTarget, principalArn: string, signal?: AbortSignal): Promise<void> {
    const { clusterName } = target;
    try {
      await this.client(target).send(
        new CreateAccessEntryCommand({
          clusterName,
          principalArn,
          type: 'STANDARD',
          kubernetesGroups: [KUBERNETES_GROUP],
        }),
        signal ? { abortSignal: signal } : {},
      );
    } catch (error) {
      if (errorName(error) !== 'ResourceInUseException') {
        throw new Error(`eks:CreateAccessEntry failed (${describeAwsError(error)})`, {
          cause: error,
        });
      }
    }
  }
}
