/**
 * How the watchdog is let into an EKS cluster: an access entry in the Kubernetes group
 * `lease-watchdog`, which deploy/rbac.yaml binds to get/list of the node Leases, the Nodes and the
 * Events of `default`, nothing else. No EKS access policy is narrower and enough: AmazonEKSViewPolicy
 * has neither Nodes nor `coordination.k8s.io`, and AmazonEKSAdminViewPolicy reads every resource,
 * Secrets included (EKS user guide, "Review access policy permissions",
 * https://docs.aws.amazon.com/eks/latest/userguide/access-policy-permissions.html).
 *
 * A module of its own, so that the function's adapters and the stack read it without the settings'
 * schemas.
 */
export const KUBERNETES_GROUP = 'lease-watchdog';
