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

/** Generates a fresh CA and a server certificate for the loopback names. */
export async function generateSimPki(opts: { hosts?: string[] } = {}): Promise<SimPki> {
  // Node's webcrypto is the WebCrypto the library expects; its DOM type is not in our lib.
  x509.cryptoProvider.set(crypto as never);
  const notBefore = new Date(Date.now() - DAY_MS);
  const notAfter = new Date(Date.now() + 365 * DAY_MS);

  const caKeys = (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=lease-watchdog-sim-ca',
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    keys: caKeys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const hosts = opts.hosts ?? ['localhost', '127.0.0.1', '::1'];
  const serverKeys = (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=kube-apiserver',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(
        hosts.map((h) =>
          /^[\d.]+$|:/.test(h) ? { type: 'ip', value: h } : { type: 'dns', value: h },
        ),
      ),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const clientKeys = (await crypto.subtle.generateKey(ALG, true, ['sign', 'verify'])) as KeyPair;
  const client = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: 'CN=lease-watchdog, O=watchdogs',
    issuer: ca.subject,
    notBefore,
    notAfter,
    signingAlgorithm: ALG,
    publicKey: clientKeys.publicKey,
    signingKey: caKeys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });

  const keyDer = await crypto.subtle.exportKey('pkcs8', serverKeys.privateKey);
  const clientKeyDer = await crypto.subtle.exportKey('pkcs8', clientKeys.privateKey);
  return {
    caPem: ca.toString('pem'),
    certPem: cert.toString('pem'),
    keyPem: pem('PRIVATE KEY', keyDer),
    clientCertPem: client.toString('pem'),
    clientKeyPem: pem('PRIVATE KEY', clientKeyDer),
  };
}
