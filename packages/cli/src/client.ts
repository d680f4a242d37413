import { readFileSync } from 'node:fs';
import { createGcmClient, type GcmClient } from '@gcm/sdk';

export const VERSION = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
})();

export const USER_AGENT = `gcm-cli/${VERSION} (node ${process.versions.node}; ${process.platform})`;

/** The SDK's client as gcm calls the service: its User-Agent, and the token when there is one. */
export function apiClient(baseUrl: string, token: string | undefined): GcmClient {
  return createGcmClient({ baseUrl, token, headers: { 'user-agent': USER_AGENT } });
}
