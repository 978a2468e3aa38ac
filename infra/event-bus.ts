/**
 * Notification events (`eventBus`): `events:PutEvents` on that event bus only. A name is a bus of
 * the stack's account and region; an ARN is taken as it is (a bus in another account also needs
 * its resource policy to let the function's role put events). A name or ARN known only at deploy
 * time (a token) is told apart by CloudFormation (condition `EventBusIsArn`).
 */
import { ArnFormat, CfnCondition, Fn, Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import type { DeploymentConfig } from '../lambda/settings/index.js';

/** Allows the function to put events on `eventBus`; nothing without it. */
export function grantPutEvents(
  scope: Construct,
  fn: lambda.Function,
  config: Pick<DeploymentConfig, 'eventBus'>,
): void {
  const bus = config.eventBus;
  if (bus === undefined) return;
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'PutNotificationEvents',
      actions: ['events:PutEvents'],
      resources: [eventBusArn(scope, bus)],
    }),
  );
}

function eventBusArn(scope: Construct, bus: string): string {
  const named = (name: string) =>
    Stack.of(scope).formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: name,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
  if (!Token.isUnresolved(bus)) return bus.startsWith('arn:') ? bus : named(bus);
  const isArn = new CfnCondition(scope, 'EventBusIsArn', {
    expression: Fn.conditionEquals(Fn.select(0, Fn.split(':', bus)), 'arn'),
  });
  return Token.asString(Fn.conditionIf(isArn.logicalId, bus, named(bus)));
}
