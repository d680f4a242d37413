import { createRequire } from 'node:module';
import { type TranslationKeys, ZxcvbnFactory } from '@zxcvbn-ts/core';
import { adjacencyGraphs, dictionary } from '@zxcvbn-ts/language-common';

/**
 * Characters of a password the estimator reads. zxcvbn's matching grows faster than the length (a random
 * 128-character password took seconds with the English dictionaries, ~25 ms at 64 with the common ones), and
 * it runs on the event loop: the first 64 characters of a strong password are strong already.
 */
export const STRENGTH_CHECKED_CHARACTERS = 64;

/** What the estimator says of a password: its score (0-4) and, for a weak one, why and what would help. */
export interface PasswordVerdict {
  score: number;
  warning: string | undefined;
  suggestions: string[];
}

/** Words of the service itself a password should not lean on. */
const SERVICE_WORDS = ['game cloud manager', 'gcm', 'gamecloud'];

let estimator: ZxcvbnFactory | undefined;

/**
 * zxcvbn's English feedback, from language-en's translation file alone: the package's index would load its
 * dictionaries too (9 MB of heap, half a second), which the common-password list makes unnecessary here.
 */
function englishFeedback(): TranslationKeys {
  const require = createRequire(import.meta.url);
  return require('@zxcvbn-ts/language-en/dist/translations.cjs') as TranslationKeys;
}

/** Built on first use (~150 ms, a few MB for the common-password list), then kept for the process. */
function getEstimator(): ZxcvbnFactory {
  estimator ??= new ZxcvbnFactory({
    dictionary,
    graphs: adjacencyGraphs,
    translations: englishFeedback(),
    maxLength: STRENGTH_CHECKED_CHARACTERS,
  });
  return estimator;
}

/**
 * zxcvbn-ts's estimate of how guessable `password` is (with @zxcvbn-ts/language-common's list of common
 * passwords and keyboard layouts), counting `userInputs` (the email, the name) and the service's own words as
 * known to an attacker.
 */
export function ratePassword(password: string, userInputs: readonly string[] = []): PasswordVerdict {
  const inputs = [...SERVICE_WORDS, ...userInputs.flatMap((input) => [input, ...input.split(/[@.\s_-]+/)])]
    .map((input) => input.slice(0, 254))
    .filter((input) => input.length >= 3);
  const result = getEstimator().check(password.slice(0, STRENGTH_CHECKED_CHARACTERS), inputs);
  return {
    score: result.score,
    warning: result.feedback.warning ?? undefined,
    suggestions: result.feedback.suggestions,
  };
}
