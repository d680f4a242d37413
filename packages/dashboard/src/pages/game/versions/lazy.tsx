import { lazy } from 'react';

/**
 * The version pages' heavy parts (the YAML parser, the contract's validator and its schemas, the diff),
 * loaded when a version page first needs them rather than with every page of the dashboard.
 */
export const VersionForm = lazy(() => import('./VersionForm').then((m) => ({ default: m.VersionForm })));
export const ConfigYaml = lazy(() => import('./ConfigText').then((m) => ({ default: m.ConfigYaml })));
export const ConfigDiff = lazy(() => import('./ConfigText').then((m) => ({ default: m.ConfigDiff })));
