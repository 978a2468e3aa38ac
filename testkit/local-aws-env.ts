/**
 * The environment of a process that runs the deployed bundle against the local AWS stand-ins
 * (testkit/bundle-runtime.ts): local credentials, no AWS config or instance metadata to find, and
 * each service the SDK reads `AWS_ENDPOINT_URL_<SERVICE>` for pointed at its local server.
 */
import { join } from 'node:path';

export interface LocalAwsEndpoints {
  readonly sns: string;
  readonly dynamodb: string;
  readonly secretsManager: string;
}

/** `dir` holds the (absent) AWS config and credentials files. */
export function localAwsEnv(dir: string, endpoints: LocalAwsEndpoints): Record<string, string> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL_SNS: endpoints.sns,
    AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: endpoints.secretsManager,
  };
}
