/** The shapes of names and ids the settings accept (and the adapters check again at their edge). */
export const PATTERNS = Object.freeze({
  CLUSTER_NAME: /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
  EKS_CLUSTER_NAME: /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/,
  DNS_LABEL: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/,
  REGION: /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/,
  SECRET_NAME: /^[A-Za-z0-9/_+=.@-]{1,512}$/,
  SECRET_ARN: /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]{1,512}$/,
  BASE64: /^[A-Za-z0-9+/]+={0,2}$/,
  /** Standard and FIFO topics. */
  TOPIC_ARN: /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/,
  TABLE_NAME: /^[A-Za-z0-9_.-]{3,255}$/,
  EMAIL: /^[^@\s"'<>(),;:]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/,
  VPC_ID: /^vpc-[0-9a-f]{8,17}$/,
  SUBNET_ID: /^subnet-[0-9a-f]{8,17}$/,
  SECURITY_GROUP_ID: /^sg-[0-9a-f]{8,17}$/,
  ACCOUNT: /^\d{12}$/,
  STACK_NAME: /^[A-Za-z][A-Za-z0-9-]{0,127}$/,
  /** An EventBridge event bus name (`default`, a custom or a partner bus). */
  EVENT_BUS_NAME: /^[A-Za-z0-9._/-]{1,256}$/,
  EVENT_BUS_ARN:
    /^arn:aws[a-z-]*:events:([a-z]{2}(-[a-z]+)+-\d{1,2}):\d{12}:event-bus\/[A-Za-z0-9._/-]{1,256}$/,
  /** An IAM role ARN (with its optional path). */
  ROLE_ARN: /^arn:aws[a-z-]*:iam::\d{12}:role\/(?:[\x21-\x7e]{0,510}\/)?[\w+=,.@-]{1,64}$/,
});

/** The values CloudWatch Logs accepts for retention. */
export const LOG_RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;
