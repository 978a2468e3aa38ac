/**
 * The catalogue the sim draws nodes from: EKS instance types (capacity, allocatable), the images a
 * node holds, zones and the standard node labels.
 */
import { fakeDigest } from './hashing.js';

export const KUBELET_VERSION = 'v1.32.3-eks-473151a';

export interface InstanceType {
  name: string;
  arch: 'amd64' | 'arm64';
  capacity: Record<string, string>;
  allocatable: Record<string, string>;
  /** Pre-serialized `"capacity":{..},"allocatable":{..}` (node JSON is built from fragments). */
  json: string;
}

export const INSTANCE_TYPES: readonly InstanceType[] = [
  instanceType('m5.xlarge', 'amd64', 4, 16_203_060, 58),
  instanceType('m5.2xlarge', 'amd64', 8, 32_386_104, 58),
  instanceType('c5.2xlarge', 'amd64', 8, 15_923_072, 58),
  instanceType('r5.large', 'amd64', 2, 15_950_660, 29),
  instanceType('m6g.xlarge', 'arm64', 4, 15_994_560, 58),
];

function instanceType(
  name: string,
  arch: 'amd64' | 'arm64',
  cpu: number,
  memKi: number,
  pods: number,
): InstanceType {
  const it = {
    name,
    arch,
    capacity: {
      cpu: String(cpu),
      'ephemeral-storage': '83873772Ki',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${memKi}Ki`,
      pods: String(pods),
    },
    allocatable: {
      cpu: `${cpu * 1000 - 80 - cpu * 10}m`,
      'ephemeral-storage': '76224326324',
      'hugepages-1Gi': '0',
      'hugepages-2Mi': '0',
      memory: `${memKi - 1_042_000}Ki`,
      pods: String(pods),
    },
  };
  return {
    ...it,
    json: `"capacity":${JSON.stringify(it.capacity)},"allocatable":${JSON.stringify(it.allocatable)}`,
  };
}

export const IMAGES: readonly { names: string[]; sizeBytes: number }[] = [
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni', 'v1.19.2-eksbuild.1', 52_112_344],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon-k8s-cni-init',
    'v1.19.2-eksbuild.1',
    59_617_190,
  ],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/kube-proxy',
    'v1.32.0-minimal-eksbuild.2',
    36_734_201,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/coredns', 'v1.11.4-eksbuild.2', 18_441_286],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/amazon/aws-network-policy-agent',
    'v1.1.6-eksbuild.1',
    35_016_455,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/aws-ebs-csi-driver', 'v1.38.1', 66_002_901],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/csi-node-driver-registrar',
    'v2.12.0-eks-1-32-1',
    8_221_418,
  ],
  [
    '602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/livenessprobe',
    'v2.14.0-eks-1-32-1',
    7_813_505,
  ],
  ['602401143452.dkr.ecr.eu-west-1.amazonaws.com/eks/pause', '3.5', 298_689],
  ['quay.io/prometheus/node-exporter', 'v1.8.2', 11_866_380],
  ['public.ecr.aws/karpenter/controller', '1.1.1', 49_205_813],
  ['registry.k8s.io/metrics-server/metrics-server', 'v0.7.2', 19_494_617],
  ['docker.io/fluent/fluent-bit', '3.2.2', 36_113_952],
  [
    'public.ecr.aws/eks-distro/kubernetes-csi/external-provisioner',
    'v5.1.0-eks-1-32-1',
    30_522_814,
  ],
  ['docker.io/library/nginx', '1.27.3', 72_955_450],
].map(([repo, tag, size]) => ({
  names: [`${repo}@sha256:${fakeDigest(`${repo}:${tag}`)}`, `${repo}:${tag}`],
  sizeBytes: size as number,
}));

export const IMAGES_JSON = JSON.stringify(IMAGES);

export function regionOf(zone: string): string {
  const m = /^([a-z]+-[a-z]+-\d+)[a-z]$/.exec(zone);
  return m?.[1] ?? 'sim-region-1';
}

export const DEFAULT_ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];

/** The labels EKS puts on a node, plus the spec's extra labels on top. */
export function standardLabels(
  name: string,
  zone: string,
  instance: InstanceType,
  extra?: Record<string, string>,
): Record<string, string> {
  const region = regionOf(zone);
  const arch = instance.arch;
  return {
    'beta.kubernetes.io/arch': arch,
    'beta.kubernetes.io/instance-type': instance.name,
    'beta.kubernetes.io/os': 'linux',
    'eks.amazonaws.com/capacityType': 'ON_DEMAND',
    'eks.amazonaws.com/nodegroup': 'general',
    'failure-domain.beta.kubernetes.io/region': region,
    'failure-domain.beta.kubernetes.io/zone': zone,
    'k8s.io/cloud-provider-aws': '5f3a0b8c7e2d41f69a1b2c3d4e5f6a7b',
    'kubernetes.io/arch': arch,
    'kubernetes.io/hostname': name,
    'kubernetes.io/os': 'linux',
    'node.kubernetes.io/instance-type': instance.name,
    'topology.k8s.aws/zone-id': `euw1-az${(zone.charCodeAt(zone.length - 1) % 3) + 1}`,
    'topology.kubernetes.io/region': region,
    'topology.kubernetes.io/zone': zone,
    ...extra,
  };
}
