/**
 * A paging tool's key (PagerDuty routing key, Opsgenie API key) read from Secrets Manager through
 * the SDK client, cached per container for SECRET_TTL_MS so that a rotated key is picked up within
 * minutes without a read per event. The key never leaves this object but in the request it
 * authenticates: errors name the secret id and the SDK error's name, never the value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { OnCallSendError } from '../../ports/index.js';

/** How long a key read from Secrets Manager is used before it is read again. */
export const SECRET_TTL_MS = 5 * 60_000;

export class SecretKey {
  #cached: { readonly value: string; readonly until: number } | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    readonly secretId: string,
    private readonly clock: () => number,
  ) {}

  /** Forgets the cached key (the tool refused it): the next `value` reads the secret again. */
  forget(): void {
    this.#cached = undefined;
  }

  /** The key; throws a retryable OnCallSendError when the secret cannot be read or is empty. */
  async value(signal: AbortSignal): Promise<string> {
    const now = this.clock();
    if (this.#cached && now < this.#cached.until) return this.#cached.value;
    let text: string;
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: this.secretId }), {
        abortSignal: signal,
      });
      text = (out.SecretString ?? '').trim();
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      throw new OnCallSendError(
        `cannot read secret ${this.secretId} (${name}): the function's role needs secretsmanager:GetSecretValue on it`,
        true,
      );
    }
    if (text === '') throw new OnCallSendError(`secret ${this.secretId} is empty`, true);
    this.#cached = { value: text, until: now + SECRET_TTL_MS };
    return text;
  }
}
