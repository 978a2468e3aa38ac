/** The Lambda context a test hands the real handler, as the Lambda runtime makes one. */
import type { Context } from 'aws-lambda';

/** A Lambda context whose deadline is `remainingMs` of real time from now. */
export function lambdaContext(requestId: string, remainingMs = 55_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    awsRequestId: requestId,
    functionName: 'lease-watchdog',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:lease-watchdog',
    memoryLimitInMB: '512',
    logGroupName: '/aws/lambda/lease-watchdog',
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
