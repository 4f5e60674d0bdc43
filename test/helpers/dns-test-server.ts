// A real DNS server over UDP on 127.0.0.1 for the webhook destination tests: answers A and AAAA
// questions from a table the test programs (fixed lists, or functions of how many times the name was
// asked, for rebinding), NXDOMAIN for unknown names, and counts the questions per name and type.
// The wire format is written by hand (RFC 1035 §4): a header, the question echoed back, and answer
// records whose name is a pointer to the question (0xC00C).
import { createSocket, type RemoteInfo } from 'node:dgram';
import { isIPv4, isIPv6 } from 'node:net';

import ipaddr from 'ipaddr.js';

/** Addresses for one record type: a fixed list, or chosen per query (1 for the first query of that type). */
export type AnswerSource = string[] | ((queryNumber: number) => string[]);

export interface DnsRecords {
  A?: AnswerSource;
  AAAA?: AnswerSource;
  /** Answer every question for the name with SERVFAIL (a broken upstream). */
  servfail?: boolean;
}

export type QuestionType = 'A' | 'AAAA';

export interface DnsTestServer {
  /** For `DestinationPolicy.dnsServers` / `Resolver#setServers`: ['127.0.0.1:PORT']. */
  servers: string[];
  set(name: string, records: DnsRecords): void;
  /** Questions received for `name` (of one type, or all types). */
  queries(name: string, type?: QuestionType): number;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const CLASS_IN = 1;
const RCODE = { noError: 0, formErr: 1, servFail: 2, nxDomain: 3 } as const;
const HEADER_BYTES = 12;
const TTL_SECONDS = 0; // nothing may cache what a test changes between queries

export async function startDnsTestServer(table: Record<string, DnsRecords> = {}): Promise<DnsTestServer> {
  const records = new Map<string, DnsRecords>();
  const counts = new Map<string, number>();
  const set = (name: string, entry: DnsRecords) => records.set(normalise(name), entry);
  for (const [name, entry] of Object.entries(table)) set(name, entry);
  const bump = (key: string) => {
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    return count;
  };

  const socket = createSocket('udp4');
  socket.on('message', (message: Buffer, from: RemoteInfo) => {
    const reply = answer(message, records, bump);
    if (reply) socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const { port } = socket.address();

  return {
    servers: [`127.0.0.1:${port}`],
    set,
    queries: (name, type) => {
      const key = normalise(name);
      if (type) return counts.get(`${key} ${type}`) ?? 0;
      return [...counts].filter(([k]) => k.startsWith(`${key} `)).reduce((sum, [, n]) => sum + n, 0);
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function normalise(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** The response to one query datagram, or null for something that is not a query at all. */
function answer(query: Buffer, records: Map<string, DnsRecords>, bump: (key: string) => number): Buffer | null {
  if (query.length < HEADER_BYTES) return null;
  const flags = query.readUInt16BE(2);
  if (flags & 0x8000) return null; // a response, not a query
  const question = readQuestion(query);
  if (!question) return header(query, RCODE.formErr, 0, 0);

  const { name, type, questionBytes } = question;
  const typeName = type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : String(type);
  const count = bump(`${name} ${typeName}`);
  const entry = records.get(name);
  if (!entry) return Buffer.concat([header(query, RCODE.nxDomain, 1, 0), questionBytes]);
  if (entry.servfail) return Buffer.concat([header(query, RCODE.servFail, 1, 0), questionBytes]);

  const source = typeName === 'A' ? entry.A : typeName === 'AAAA' ? entry.AAAA : undefined;
  const addresses = source === undefined ? [] : typeof source === 'function' ? source(count) : source;
  const answers = addresses.map((address) => resourceRecord(type, address));
  // A known name without records of this type: NOERROR with no answers ("no data").
  return Buffer.concat([header(query, RCODE.noError, 1, answers.length), questionBytes, ...answers]);
}

function readQuestion(query: Buffer): { name: string; type: number; questionBytes: Buffer } | null {
  if (query.readUInt16BE(4) !== 1) return null; // QDCOUNT: resolvers ask one question at a time
  const labels: string[] = [];
  let offset = HEADER_BYTES;
  for (;;) {
    if (offset >= query.length) return null;
    const length = query[offset];
    if (length === 0) break;
    if (length > 63 || offset + 1 + length > query.length) return null; // no compression in questions
    labels.push(query.toString('latin1', offset + 1, offset + 1 + length));
    offset += 1 + length;
  }
  offset += 1;
  if (offset + 4 > query.length) return null;
  const type = query.readUInt16BE(offset);
  if (query.readUInt16BE(offset + 2) !== CLASS_IN) return null;
  // The question is echoed byte for byte (c-ares compares it, case included, with what it sent).
  return { name: normalise(labels.join('.')), type, questionBytes: query.subarray(HEADER_BYTES, offset + 4) };
}

function header(query: Buffer, rcode: number, questions: number, answers: number): Buffer {
  const out = Buffer.alloc(HEADER_BYTES);
  out.writeUInt16BE(query.readUInt16BE(0), 0); // the query's ID
  const queryFlags = query.readUInt16BE(2);
  const opcode = queryFlags & 0x7800;
  const recursionDesired = queryFlags & 0x0100;
  // QR (response), AA (authoritative), RA (recursion available), plus the query's opcode and RD.
  out.writeUInt16BE(0x8000 | opcode | 0x0400 | recursionDesired | 0x0080 | rcode, 2);
  out.writeUInt16BE(questions, 4);
  out.writeUInt16BE(answers, 6);
  return out; // NSCOUNT and ARCOUNT stay 0: no authority or additional records (no EDNS either)
}

function resourceRecord(type: number, address: string): Buffer {
  const valid = type === TYPE_A ? isIPv4(address) : isIPv6(address);
  if (!valid) throw new Error(`dns-test-server: ${address} is not a valid ${type === TYPE_A ? 'A' : 'AAAA'} address`);
  const data = Buffer.from(ipaddr.parse(address).toByteArray());
  const out = Buffer.alloc(12);
  out.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's name at offset 12
  out.writeUInt16BE(type, 2);
  out.writeUInt16BE(CLASS_IN, 4);
  out.writeUInt32BE(TTL_SECONDS, 6);
  out.writeUInt16BE(data.length, 10);
  return Buffer.concat([out, data]);
}
