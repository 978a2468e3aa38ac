/**
 * The EKS access policy the watchdog's access entry gets: the only one that lists Nodes
 * (cluster-scoped) and Leases (coordination.k8s.io): `*` resources, get/list/watch, Secrets
 * included (EKS user guide, "Review access policy permissions",
 * https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html).
 * AmazonEKSViewPolicy names fixed API groups, without coordination.k8s.io, and no Nodes.
 *
 * A module of its own, so that the function's adapters read it without the settings' schemas.
 */
export const ACCESS_POLICY = 'AmazonEKSAdminViewPolicy';
