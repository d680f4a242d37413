/**
 * What a client that validates a config without the service (the CLI offline, the dashboard as a person
 * types) needs beside the validator, which takes a schema-valid config only: the schema's own complaints,
 * and the region names a config uses.
 */
import { Value } from 'typebox/value';
import type { ValidationErrorItem } from '../errors.js';
import { oneOfMessage, valueAtPointer } from '../schema-issues.js';
import { VersionConfigSchema } from './schema.js';

/**
 * Where a value does not match VersionConfigSchema, one error per place (the first reason there), with a
 * path as the validator's (`config`, then the place) so both kinds are shown the same way. The service
 * answers these as 400 API_BAD_BODY instead: a client shows them before the rules run.
 */
export function configShapeErrors(value: unknown): ValidationErrorItem[] {
  const errors = [...Value.Errors(VersionConfigSchema, value)].filter((e) => e.keyword !== 'anyOf');
  // An optional member may be null: where a value is an object with a mistake inside, "must be null" (the
  // other member of its union) says nothing useful, so it goes when an error at or below it says more.
  const nullOnly = (e: (typeof errors)[number]) =>
    e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null';
  const saysMore = (e: (typeof errors)[number]) =>
    errors.some(
      (other) =>
        !nullOnly(other) &&
        (other.instancePath === e.instancePath || other.instancePath.startsWith(`${e.instancePath}/`)),
    );
  const seen = new Map<string, ValidationErrorItem>();
  for (const error of errors) {
    if (seen.has(error.instancePath) || (nullOnly(error) && saysMore(error))) continue;
    const path = error.instancePath.split('/').slice(1);
    const where = path.length === 0 ? 'the config' : path.join('.');
    const message =
      oneOfMessage(errors, error.instancePath, valueAtPointer(value, error.instancePath)) ?? error.message;
    seen.set(error.instancePath, { path: ['config', ...path], message: `${where} ${message}` });
  }
  return [...seen.values()];
}

/** The region names a config uses (keys of every `regions` map): offline, each counts as offered. */
export function regionsNamedIn(config: unknown): string[] {
  const names = new Set<string>();
  const walk = (node: unknown, key: string | undefined) => {
    if (typeof node !== 'object' || node === null) return;
    if (key === 'regions' && !Array.isArray(node)) for (const name of Object.keys(node)) names.add(name);
    for (const [k, v] of Object.entries(node)) walk(v, k);
  };
  walk(config, undefined);
  return [...names];
}
