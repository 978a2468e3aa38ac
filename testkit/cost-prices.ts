/**
 * The list prices `npm run bench:cost` multiplies its measured units by: us-east-1, as of
 * 2026-11-30, from aws.amazon.com/<service>/pricing, free tiers ignored. Dated in docs/COST.md;
 * newer prices are a change of this file (and of the dated sentence that quotes them).
 */
export const PRICES = {
  lambdaGbSecondArm: 0.0000133334,
  lambdaRequest: 0.2 / 1e6,
  schedulerInvocation: 1.0 / 1e6,
  sqsRequest: 0.4 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoStorageGbMonth: 0.25,
  snsPublish: 0.5 / 1e6,
  snsEmailDelivery: 2.0 / 1e5,
  logsIngestedGb: 0.5,
  customMetricMonth: 0.3,
  kmsKeyMonth: 1.0,
  alarmMonth: 0.1,
  secretMonth: 0.4,
  dashboardMonth: 3.0,
};
