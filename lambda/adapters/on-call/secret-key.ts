/**
 * A paging tool's key (PagerDuty routing key, Opsgenie API key) read from Secrets Manager through
 * the SDK client, cached per container for SECRET_TTL_MS so that a rotated key is picked up within
 * minutes without a read per event. Each key comes with its VersionId: a resolve is sent under the
 * version its trigger went out with (a rotated key's AWSPREVIOUS), since a tool pairs the events
 * of an incident under one key. The key never leaves this object but in the request it
 * authenticates: errors name the secret id and the SDK error's name, never the value.
 */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { OnCallSendError } from '../../ports/index.js';

/** How long a key read from Secrets Manager is used before it is read again. */
export const SECRET_TTL_MS = 5 * 60_000;

/** A key and the secret version it is (absent: the secret said none). */
export interface KeyVersion {
  readonly value: string;
  readonly version?: string | undefined;
}

export class SecretKey {
  #cached: (KeyVersion & { readonly until: number }) | undefined;

  constructor(
    private readonly client: SecretsManagerClient,
    readonly secretId: string,
    private readonly clock: () => number,
  ) {}

  /** Forgets the cached key (the tool refused it): the next `value` reads the secret again. */
  forget(): void {
    this.#cached = undefined;
  }

  /**
   * The key of `version`, or the current one (AWSCURRENT) when absent or no longer kept; throws a
   * retryable OnCallSendError when the secret cannot be read or is empty.
   */
  async value(signal: AbortSignal, version?: string): Promise<KeyVersion> {
    const now = this.clock();
    const cached = this.#cached;
    const wanted = version === undefined || version === cached?.version;
    if (cached && wanted && now < cached.until) return cached;
    // An older version (a resolve after a rotation) is read each time: rare, and never cached.
    const read = await this.#read(signal, version);
    if (read === undefined) return this.value(signal);
    if (version === undefined) this.#cached = { ...read, until: now + SECRET_TTL_MS };
    return read;
  }

  /** GetSecretValue (of `version`); undefined when that version is gone. */
  async #read(signal: AbortSignal, version: string | undefined): Promise<KeyVersion | undefined> {
    let out: { SecretString?: string | undefined; VersionId?: string | undefined };
    try {
      const input = { SecretId: this.secretId, ...(version ? { VersionId: version } : {}) };
      out = await this.client.send(new GetSecretValueCommand(input), { abortSignal: signal });
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      if (version !== undefined && name === 'ResourceNotFoundException') return undefined;
      throw new OnCallSendError(
        `cannot read secret ${this.secretId} (${name}): the function's role needs secretsmanager:GetSecretValue on it`,
        true,
      );
    }
    const text = (out.SecretString ?? '').trim();
    if (text === '') throw new OnCallSendError(`secret ${this.secretId} is empty`, true);
    return { value: text, version: out.VersionId };
  }
}
