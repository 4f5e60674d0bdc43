// A loopback stand-in for AWS KMS, for tests of AwsKmsKeyProvider through the real @aws-sdk/client-kms
// (no KMS emulator is reachable here). It speaks KMS's JSON 1.1 protocol (POST /, X-Amz-Target
// TrentService.<Operation>, base64 blobs) for Encrypt and Decrypt, and it really encrypts: AES-256-GCM
// under a random key per KMS key, the encryption context bound as additional data, so a wrong context
// or a changed blob answers InvalidCiphertextException and another key's KeyId IncorrectKeyException,
// as KMS does. It can be told to answer every call with an error (AccessDeniedException...) and to stop
// answering (its port refuses connections) and start again. It checks that a request is SigV4-signed,
// not the signature itself.
import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// The SDK's default credential chain reads these first; the stand-in takes any signed request.
process.env.AWS_ACCESS_KEY_ID ??= 'svc-stt-test';
process.env.AWS_SECRET_ACCESS_KEY ??= 'svc-stt-test-secret';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export const KMS_TEST_REGION = 'us-east-1';
const ACCOUNT = '111122223333';
const MAGIC = Buffer.from('SKMS');
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface KmsTestServer {
  /** http://127.0.0.1:PORT */
  readonly endpoint: string;
  readonly region: string;
  /** Makes a key and returns its ARN; with `alias`, `alias/<alias>` names it too. */
  createKey(alias?: string): string;
  /** Every call answers this KMS error (e.g. AccessDeniedException) until given null. */
  failWith(errorType: string | null): void;
  /** Calls answered so far, by operation (Encrypt, Decrypt), errors included. */
  readonly calls: Record<string, number>;
  /** Stops answering: the port refuses connections until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

class KmsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

export async function startKmsServer(): Promise<KmsTestServer> {
  const keys = new Map<string, Buffer>();
  const aliases = new Map<string, string>();
  const calls: Record<string, number> = {};
  let failure: string | null = null;

  const resolveKey = (keyId: unknown): string => {
    if (typeof keyId !== 'string') throw new KmsFault('ValidationException', 'KeyId is required');
    const aliasName = keyId.replace(/^arn:aws:kms:[^:]+:\d+:(?=alias\/)/, '');
    const arn = aliases.get(aliasName) ?? (keyId.startsWith('arn:') ? keyId : `arn:aws:kms:${KMS_TEST_REGION}:${ACCOUNT}:key/${keyId}`);
    if (!keys.has(arn)) throw new KmsFault('NotFoundException', `Key '${keyId}' does not exist`);
    return arn;
  };
  // The context as KMS binds it: its entries in key order.
  const contextAad = (context: unknown) =>
    Buffer.from(JSON.stringify(Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b))), 'utf8');

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    Encrypt(input) {
      const arn = resolveKey(input.KeyId);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', keys.get(arn)!, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(contextAad(input.EncryptionContext));
      const body = Buffer.concat([cipher.update(Buffer.from(String(input.Plaintext), 'base64')), cipher.final(), cipher.getAuthTag()]);
      const name = Buffer.from(arn, 'utf8');
      const length = Buffer.alloc(2);
      length.writeUInt16BE(name.length);
      const blob = Buffer.concat([MAGIC, length, name, iv, body]);
      return { CiphertextBlob: blob.toString('base64'), KeyId: arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    Decrypt(input) {
      const blob = Buffer.from(String(input.CiphertextBlob), 'base64');
      const invalid = () => new KmsFault('InvalidCiphertextException', '');
      if (blob.length < 6 || !blob.subarray(0, 4).equals(MAGIC)) throw invalid();
      const nameEnd = 6 + blob.readUInt16BE(4);
      const arn = blob.subarray(6, nameEnd).toString('utf8');
      const key = keys.get(arn);
      if (!key || blob.length < nameEnd + IV_BYTES + TAG_BYTES) throw invalid();
      if (input.KeyId !== undefined && resolveKey(input.KeyId) !== arn) {
        throw new KmsFault('IncorrectKeyException', 'The key ID in the request does not identify a KMS key that can perform this operation.');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(nameEnd, nameEnd + IV_BYTES), { authTagLength: TAG_BYTES });
        decipher.setAAD(contextAad(input.EncryptionContext));
        decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
        const plain = Buffer.concat([decipher.update(blob.subarray(nameEnd + IV_BYTES, blob.length - TAG_BYTES)), decipher.final()]);
        return { KeyId: arn, Plaintext: plain.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
      } catch {
        throw invalid();
      }
    },
  };

  const answer = (res: ServerResponse, status: number, body: unknown, errorType?: string) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', ...(errorType ? { 'x-amzn-errortype': errorType } : {}) });
    res.end(JSON.stringify(body));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^TrentService\./, '');
    calls[operation] = (calls[operation] ?? 0) + 1;
    try {
      if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 Credential=')) {
        throw new KmsFault('MissingAuthenticationTokenException', 'Request is missing Authentication Token');
      }
      if (failure) throw new KmsFault(failure, `the stand-in was told to answer ${failure}`);
      const run = operations[operation];
      if (!run) throw new KmsFault('UnknownOperationException', `the stand-in does not answer ${operation}`);
      answer(res, 200, run(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>));
    } catch (error) {
      const fault = error instanceof KmsFault ? error : new KmsFault('KMSInternalException', String(error));
      answer(res, fault.type === 'KMSInternalException' ? 500 : 400, { __type: fault.type, message: fault.message }, fault.type);
    }
  };

  let server: Server | null = null;
  const listen = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const made = createServer((req, res) => void handle(req, res));
      made.once('error', reject);
      made.listen(port, '127.0.0.1', () => resolve(made));
    });
  const shut = async () => {
    const closing = server;
    server = null;
    if (!closing) return;
    closing.closeAllConnections();
    await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  server = await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: KMS_TEST_REGION,
    calls,
    createKey(alias) {
      const arn = `arn:aws:kms:${KMS_TEST_REGION}:${ACCOUNT}:key/${randomUUID()}`;
      keys.set(arn, randomBytes(32));
      if (alias) aliases.set(`alias/${alias}`, arn);
      return arn;
    },
    failWith(errorType) {
      failure = errorType;
    },
    stop: shut,
    async start() {
      server ??= await listen(port);
    },
    close: shut,
  };
}
