// What a deployment allows as a webhook destination. `allowLoopback` exists for tests only (it is
// SVC_WEBHOOK_ALLOW_LOOPBACK); `dnsServers` null means the system's resolvers.
export interface DestinationPolicy {
  allowLoopback: boolean;
  /** Addresses for `dns.Resolver#setServers`, e.g. ['127.0.0.1:5353']. */
  dnsServers: string[] | null;
}
