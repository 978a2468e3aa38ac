/**
 * A throwaway PKI for the simulated API server: a self-signed CA and a server certificate it
 * signs, valid for localhost, 127.0.0.1 and ::1. Generated in memory at every start (ECDSA P-256,
 * a few milliseconds); nothing is written to disk.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

export interface SimPki {
  /** PEM of the CA certificate: what a kubeconfig's certificate-authority-data holds. */
  readonly caPem: string;
  /** PEM of the server certificate (signed by the CA). */
  readonly certPem: string;
  /** PEM (PKCS#8) of the server certificate's private key. */
  readonly keyPem: string;
  /** A client certificate the CA signs (CN=lease-watchdog, O=watchdogs), for kubeconfig users. */
  readonly clientCertPem: string;
  /** PEM (PKCS#8) of the client certificate's private key. */
  readonly clientKeyPem: string;
}

type KeyPair = Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[0]['keys'];

const crypto = webcrypto;
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

function randomSerial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f; // positive
  return Buffer.from(bytes).toString('hex');
}

function pem(label: string, der: ArrayBuffer): string {
  const b64 = Buffer.from(der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** A certificate and its key pair. */
interface Issued {
  readonly cert: x509.X509Certificate;
  readonly keys: KeyPair;
}

interface Validity {
  readonly notBefore: Date;
  readonly notAfter: Date;
}

async function keyPair(): Promise<KeyPair> {
  return (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
}

/** The self-signed CA: it signs certificates (no intermediate CA under it) and CRLs. */
async function selfSignedCa(validity: Validity): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=lease-watchdog-sim-ca',
    ...validity,
    signingAlgorithm: ALG,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys };
}

/**
 * A certificate `ca` signs for `subject`, not a CA, for digital signatures: `usage` (its extended
 * key usage, then any other extension) between those and the CA's key identifier.
 */
async function signedBy(
  ca: Issued,
  subject: string,
  validity: Validity,
  usage: x509.Extension[],
): Promise<Issued> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject,
    issuer: ca.cert.subject,
    ...validity,
    signingAlgorithm: ALG,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      ...usage,
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ],
  });
  return { cert, keys };
}

async function privateKeyPem(keys: KeyPair): Promise<string> {
  return pem('PRIVATE KEY', await crypto.subtle.exportKey('pkcs8', keys.privateKey));
}

/** Generates a fresh CA and a server certificate for the loopback names. */
export async function generateSimPki(opts: { hosts?: string[] } = {}): Promise<SimPki> {
  // Node's webcrypto is the WebCrypto the library expects; its DOM type is not in our lib.
  x509.cryptoProvider.set(crypto as never);
  const validity = {
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 365 * DAY_MS),
  };
  const ca = await selfSignedCa(validity);
  const hosts = opts.hosts ?? ['localhost', '127.0.0.1', '::1'];
  const server = await signedBy(ca, 'CN=kube-apiserver', validity, [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(
      hosts.map((h) =>
        /^[\d.]+$|:/.test(h) ? { type: 'ip', value: h } : { type: 'dns', value: h },
      ),
    ),
  ]);
  const client = await signedBy(ca, 'CN=lease-watchdog, O=watchdogs', validity, [
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ]);
  return {
    caPem: ca.cert.toString('pem'),
    certPem: server.cert.toString('pem'),
    keyPem: await privateKeyPem(server.keys),
    clientCertPem: client.cert.toString('pem'),
    clientKeyPem: await privateKeyPem(client.keys),
  };
}
