// A console client for the HTTP-level tests: a browser's cookie jar and form posts (with the Origin
// header a browser sends), redirects not followed, so each answer's status, headers and page can be checked
// (follow() takes a 303 to its page, as a browser would, with the one-time flash cookie it set).

import { request as httpRequest } from 'node:http';

import { INVITE_TTL_MS } from '../../src/cli/console-users-command.js';

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  page: string;
}

export class ConsoleClient {
  /** The session cookie's value, as the jar holds it ('' after the server expired it). */
  cookie: string | null = null;
  /** The flash cookie's value ('' once the page it was for cleared it). */
  flash: string | null = null;

  constructor(
    readonly base: string,
    /** Headers sent with every request (e.g. another origin). */
    private readonly extra: Record<string, string> = {},
  ) {}

  get(path: string): Promise<ConsoleAnswer> {
    return this.send(path, { method: 'GET' });
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<ConsoleAnswer> {
    return this.send(path, {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.base, ...headers },
    });
  }

  /** A change's answer followed as a browser would: the page its 303 names (the answer itself if it is not a 303). */
  async follow(answer: ConsoleAnswer): Promise<ConsoleAnswer> {
    if (answer.status !== 303) return answer;
    return this.get(answer.headers.get('location')!);
  }

  /** A form post followed to the page its 303 names: the page a browser shows after a change. */
  async postFollow(path: string, form: Record<string, string>): Promise<ConsoleAnswer> {
    return this.follow(await this.post(path, form));
  }

  /** The CSRF token of the forms on a page. */
  static csrfOf(page: string): string {
    const match = /name="csrf" value="([^"]+)"/.exec(page);
    if (!match) throw new Error('the page has no CSRF token');
    return match[1];
  }

  private cookieHeader(): string {
    return [this.cookie ? `svc_console_session=${this.cookie}` : '', this.flash ? `svc_console_flash=${this.flash}` : ''].filter((c) => c !== '').join('; ');
  }

  private async send(path: string, init: RequestInit & { headers?: Record<string, string> }): Promise<ConsoleAnswer> {
    const res = await fetch(`${this.base}${path}`, {
      ...init,
      redirect: 'manual',
      headers: { ...this.extra, ...(init.headers ?? {}), ...(this.cookieHeader() ? { cookie: this.cookieHeader() } : {}) },
    });
    for (const set of res.headers.getSetCookie()) {
      this.cookie = /^svc_console_session=([^;]*)/.exec(set)?.[1] ?? this.cookie;
      this.flash = /^svc_console_flash=([^;]*)/.exec(set)?.[1] ?? this.flash;
    }
    return { status: res.status, headers: res.headers, page: await res.text() };
  }
}

/** What newMember needs of a running service: its console's URL and the console accounts store. */
export interface ConsoleService {
  service: { consoleUrl: string | null };
  stores: { consoleAccounts: { createInvite(tenant: string, email: string, nowMs: number, ttlMs: number): Promise<{ token: string }> } };
}

/** Where newMember's account differs from the usual one. */
export interface NewMemberOptions {
  /** The invited email; `<tenant>@clinic.example` when not given. */
  email?: string;
  /** The service's clock where a test moves it; now when not given. */
  nowMs?: number;
}

/** A signed-in client of a new account of `tenant`: an operator's invite, then the password set on its page. */
export async function newMember(svc: ConsoleService, tenant: string, password: string, options: NewMemberOptions = {}): Promise<ConsoleClient> {
  const { email = `${tenant}@clinic.example`, nowMs = Date.now() } = options;
  const client = new ConsoleClient(svc.service.consoleUrl!);
  const { token } = await svc.stores.consoleAccounts.createInvite(tenant, email, nowMs, INVITE_TTL_MS);
  const set = await client.post(`/invite/${token}`, { password, repeat: password });
  if (set.status !== 303) throw new Error(`invite answered ${set.status}`);
  return client;
}

/**
 * A form post, without cookies, from another loopback address (127.0.0.2, ...): to the service, another
 * client address (fetch cannot choose the address it connects from).
 */
export function postFrom(localAddress: string, base: string, path: string, form: Record<string, string>): Promise<ConsoleAnswer> {
  const body = new URLSearchParams(form).toString();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) for (const one of [value ?? []].flat()) headers.append(name, one);
          resolve({ status: res.statusCode ?? 0, headers, page: Buffer.concat(chunks).toString() });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
