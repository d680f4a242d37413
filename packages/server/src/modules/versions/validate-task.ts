/**
 * One validation of a version configuration, as the versions service runs it: on the event loop for a
 * small body, or as the whole of a worker thread's task for a large one (this module is the worker's file,
 * its default export the task). Only the first VERSION_ERRORS_ANSWERED errors are kept, so a configuration
 * breaking thousands of rules sends a short answer back from the worker and to the client.
 */
import {
  type ValidateFacts,
  type ValidationErrorItem,
  VERSION_ERRORS_ANSWERED,
  type VersionBody,
  validateVersion,
} from '@gcm/contract';

export interface ValidationTask {
  readonly input: VersionBody;
  readonly facts: ValidateFacts;
}

export interface FoundErrors {
  /** The first VERSION_ERRORS_ANSWERED. */
  readonly errors: ValidationErrorItem[];
  /** How many there are in all. */
  readonly total: number;
}

export default function runValidation(task: ValidationTask): FoundErrors {
  const found = validateVersion(task.input, task.facts);
  return { errors: found.slice(0, VERSION_ERRORS_ANSWERED), total: found.length };
}
