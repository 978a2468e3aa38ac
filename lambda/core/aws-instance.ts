/**
 * What a node says about its place in AWS: an EC2 instance id (from `spec.providerID`,
 * `aws:///eu-west-1a/i-0abc1234567890def`) and the region of its zone. Used for the AWS next steps
 * of an email and for the EC2 evidence; a node without an EC2 instance id is not an AWS node.
 */

const INSTANCE_ID = /^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/;
/**
 * A zone is its region and a letter (`eu-west-1a`); a Local Zone or Wavelength Zone adds its
 * place before the letter (`us-west-2-lax-1a`, `us-east-1-wl1-bos-wlz-1`): the region is the
 * first `<area>-<direction>-<digit>` (GovCloud: `us-gov-west-1a`).
 */
const ZONE = /^([a-z]{2}(?:-gov|-iso[a-z]?)?-[a-z]+-\d+)(?:[a-z]|-[a-z0-9-]+)$/;

/** The EC2 instance id of a node, when `instance` is one (else undefined). */
export function awsInstanceId(instance: string | null | undefined): string | undefined {
  return instance && INSTANCE_ID.test(instance) ? instance : undefined;
}

/** The AWS region of an availability zone name, when it is one (`eu-west-1a` → `eu-west-1`). */
export function regionOfZone(zone: string | null | undefined): string | undefined {
  if (!zone || zone.length > 64) return undefined;
  return ZONE.exec(zone)?.[1];
}

/** The account of an ARN (`arn:aws:sns:eu-west-1:123456789012:topic` → `123456789012`). */
export function accountOfArn(arn: string | undefined): string | undefined {
  const account = arn?.split(':')[4];
  return account && /^\d{12}$/.test(account) ? account : undefined;
}
