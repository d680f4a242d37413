import { type Config, SETTINGS, type Setting, settingValues } from './config.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface SettingReport {
  readonly name: string;
  /** The effective value as text, secrets masked; `(unset)` when the setting is off or left to a default chain. */
  readonly value: string;
  readonly source: 'environment' | 'default';
}

export const MASK = '***';
const UNSET = '(unset)';

const MASKS: Readonly<Record<NonNullable<Setting<unknown>['secret']>, (shown: string) => string>> = {
  whole: maskAll,
  url: maskUrl,
};

/** The names of every variable the report covers, in its order (the config schema's). */
export const REPORTED_VARIABLES: readonly string[] = SETTINGS.map((setting) => setting.env);

/** Each setting of `config` with its value (secrets masked) and whether `env` set it. */
export function describeConfig(config: Config, env: Env): SettingReport[] {
  return settingValues(config).map(({ setting, value }) => {
    const shown = setting.show(value) ?? UNSET;
    const raw = env[setting.env];
    return {
      name: setting.env,
      value: setting.secret === undefined || shown === UNSET ? shown : MASKS[setting.secret](shown),
      source: raw === undefined || raw.trim() === '' ? 'default' : 'environment',
    };
  });
}

function maskAll(): string {
  return MASK;
}

/** The URL with its password, and query values that look like credentials, replaced; unparsable: all of it. */
export function maskUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== '') url.password = MASK;
    for (const key of [...url.searchParams.keys()]) {
      if (/pass|secret|token|key/i.test(key)) url.searchParams.set(key, MASK);
    }
    // URLSearchParams percent-encodes the mask; the operator should read it as written.
    return url.toString().replaceAll('%2A%2A%2A', MASK);
  } catch {
    return MASK;
  }
}
