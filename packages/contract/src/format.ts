/**
 * Pure text helpers shared by the CLI and the dashboard, so both write sizes and propose ids the same way.
 * This file imports nothing: the dashboard takes it in as `@gcm/contract/format` without the schema library.
 */

/** Bytes as people read them, in binary units: `512 B`, `6.0 MiB`, `1.2 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/**
 * An id proposed from a display name (a team's slug, a game's or a namespace's name id): lower case,
 * accents dropped, anything else a single `-`, none at either end, and at most `max` characters cut at a
 * word boundary ("Star Raiders: Online!" at 16 → `star-raiders`, not `star-raiders-onl`). A first word
 * longer than `max` is cut inside, since an id must not be empty.
 */
export function proposeId(name: string, max: number): string {
  const whole = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (whole.length <= max) return whole;
  const boundary = whole.lastIndexOf('-', max);
  return boundary > 0 ? whole.slice(0, boundary) : whole.slice(0, max);
}
