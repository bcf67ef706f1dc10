// Password rules (NIST SP 800-63B style): 8 to 128 characters, no composition rules, not one of the
// most common passwords (shipped list), not containing the email's local part, and not easy to guess
// by zxcvbn's estimate (score 3 of 4 or better, with the person's email and names as context, over
// the dictionaries of the service's languages). Hashing is argon2id with OWASP's parameters
// (m=19456 KiB, t=2, p=1).
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { createRequire } from 'node:module';
import type * as Core from '@zxcvbn-ts/core';
import type * as Common from '@zxcvbn-ts/language-common';
import type * as De from '@zxcvbn-ts/language-de';
import type * as En from '@zxcvbn-ts/language-en';
import type * as Es from '@zxcvbn-ts/language-es-es';
import type * as Fr from '@zxcvbn-ts/language-fr';
import type * as It from '@zxcvbn-ts/language-it';
import type * as Nl from '@zxcvbn-ts/language-nl-be';
import type * as Pt from '@zxcvbn-ts/language-pt-br';

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

const COMMON = new Set(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'common-passwords.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim().toLowerCase())
    .filter((l) => l && !l.startsWith('#')),
);

// Built once, on first use: the word lists of every locale the service speaks (without the large
// Wikipedia lists, which cost start-up time and memory for little gain). The packages are loaded
// then too, not at start-up: they unpack their word lists as they load, a good part of the
// server's start time, which readiness does not need.
const require = createRequire(import.meta.url);
let estimator: Core.ZxcvbnFactory | undefined;
function strength(password: string, context: string[]): number {
  if (!estimator) {
    const { ZxcvbnFactory } = require('@zxcvbn-ts/core') as typeof Core;
    const common = require('@zxcvbn-ts/language-common') as typeof Common;
    const en = require('@zxcvbn-ts/language-en') as typeof En;
    const de = require('@zxcvbn-ts/language-de') as typeof De;
    const es = require('@zxcvbn-ts/language-es-es') as typeof Es;
    const fr = require('@zxcvbn-ts/language-fr') as typeof Fr;
    const it = require('@zxcvbn-ts/language-it') as typeof It;
    const nl = require('@zxcvbn-ts/language-nl-be') as typeof Nl;
    const pt = require('@zxcvbn-ts/language-pt-br') as typeof Pt;
    const lists = { ...common.dictionary, ...en.dictionary, ...de.dictionary, ...es.dictionary, ...fr.dictionary, ...it.dictionary, ...nl.dictionary, ...pt.dictionary };
    const dictionary = Object.fromEntries(Object.entries(lists).filter(([name]) => !name.startsWith('wikipedia')));
    estimator = new ZxcvbnFactory({ graphs: common.adjacencyGraphs, dictionary, translations: en.translations });
  }
  return estimator.check(password, context).score;
}

const MIN_SCORE = 3;

type Problem = 'too_short' | 'too_long' | 'too_common' | 'like_email' | 'guessable';
const MESSAGES: Record<string, Record<Problem, string>> = {
  en: {
    too_short: `This password is too short. It must contain at least ${PASSWORD_MIN} characters.`,
    too_long: `This password is too long. It must contain at most ${PASSWORD_MAX} characters.`,
    too_common: 'This password is too common.',
    like_email: 'The password is too similar to the email address.',
    guessable: 'This password is too easy to guess. Use three or four unrelated words, or a longer phrase; avoid names, dates and keyboard patterns.',
  },
  de: {
    too_short: `Dieses Passwort ist zu kurz. Es muss mindestens ${PASSWORD_MIN} Zeichen enthalten.`,
    too_long: `Dieses Passwort ist zu lang. Es darf höchstens ${PASSWORD_MAX} Zeichen enthalten.`,
    too_common: 'Dieses Passwort ist zu verbreitet.',
    like_email: 'Das Passwort ist der E-Mail-Adresse zu ähnlich.',
    guessable: 'Dieses Passwort ist zu leicht zu erraten. Verwenden Sie drei oder vier Wörter ohne Zusammenhang oder einen längeren Satz; vermeiden Sie Namen, Daten und Tastaturmuster.',
  },
  es: {
    too_short: `Esta contraseña es demasiado corta. Debe contener al menos ${PASSWORD_MIN} caracteres.`,
    too_long: `Esta contraseña es demasiado larga. Debe contener como máximo ${PASSWORD_MAX} caracteres.`,
    too_common: 'Esta contraseña es demasiado común.',
    like_email: 'La contraseña se parece demasiado a la dirección de correo electrónico.',
    guessable: 'Esta contraseña es demasiado fácil de adivinar. Use tres o cuatro palabras sin relación o una frase más larga; evite nombres, fechas y secuencias del teclado.',
  },
  fr: {
    too_short: `Ce mot de passe est trop court. Il doit contenir au moins ${PASSWORD_MIN} caractères.`,
    too_long: `Ce mot de passe est trop long. Il doit contenir au plus ${PASSWORD_MAX} caractères.`,
    too_common: 'Ce mot de passe est trop courant.',
    like_email: 'Le mot de passe est trop proche de l’adresse e-mail.',
    guessable: 'Ce mot de passe est trop facile à deviner. Utilisez trois ou quatre mots sans rapport ou une phrase plus longue ; évitez les noms, les dates et les suites du clavier.',
  },
  it: {
    too_short: `Questa password è troppo corta. Deve contenere almeno ${PASSWORD_MIN} caratteri.`,
    too_long: `Questa password è troppo lunga. Deve contenere al massimo ${PASSWORD_MAX} caratteri.`,
    too_common: 'Questa password è troppo comune.',
    like_email: 'La password è troppo simile all’indirizzo e-mail.',
    guessable: 'Questa password è troppo facile da indovinare. Usa tre o quattro parole senza relazione o una frase più lunga; evita nomi, date e sequenze della tastiera.',
  },
  nl: {
    too_short: `Dit wachtwoord is te kort. Het moet minstens ${PASSWORD_MIN} tekens bevatten.`,
    too_long: `Dit wachtwoord is te lang. Het mag hoogstens ${PASSWORD_MAX} tekens bevatten.`,
    too_common: 'Dit wachtwoord komt te vaak voor.',
    like_email: 'Het wachtwoord lijkt te veel op het e-mailadres.',
    guessable: 'Dit wachtwoord is te makkelijk te raden. Gebruik drie of vier losse woorden of een langere zin; vermijd namen, datums en toetsenbordpatronen.',
  },
  pt: {
    too_short: `Esta palavra-passe é demasiado curta. Deve ter pelo menos ${PASSWORD_MIN} caracteres.`,
    too_long: `Esta palavra-passe é demasiado longa. Deve ter no máximo ${PASSWORD_MAX} caracteres.`,
    too_common: 'Esta palavra-passe é demasiado comum.',
    like_email: 'A palavra-passe é demasiado parecida com o endereço de e-mail.',
    guessable: 'Esta palavra-passe é demasiado fácil de adivinhar. Use três ou quatro palavras sem relação ou uma frase mais longa; evite nomes, datas e sequências do teclado.',
  },
};

export interface PasswordContext {
  email?: string;
  /** First and last name and anything else the person typed: guessing starts there. */
  names?: Array<string | null | undefined>;
  /** One of the service's locales; English otherwise. */
  locale?: string | null;
}

/** Messages for a weak password, in the person's locale (empty when acceptable). */
export function passwordProblems(password: string, context: PasswordContext = {}): string[] {
  const text = MESSAGES[context.locale ?? 'en'] ?? MESSAGES.en!;
  const problems: Problem[] = [];
  const length = [...password].length;
  if (length < PASSWORD_MIN) problems.push('too_short');
  if (length > PASSWORD_MAX) problems.push('too_long');
  if (COMMON.has(password.toLowerCase())) problems.push('too_common');
  const local = context.email?.split('@')[0]?.toLowerCase() ?? '';
  if (local.length >= 3 && password.toLowerCase().includes(local)) problems.push('like_email');
  if (problems.length === 0 && length <= PASSWORD_MAX) {
    const inputs = [context.email, local, ...(context.names ?? [])].filter((v): v is string => typeof v === 'string' && v.length > 0);
    if (strength(password, inputs) < MIN_SCORE) problems.push('guessable');
  }
  return problems.map((p) => text[p]);
}

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };

// argon2 runs in libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise). Twenty
// concurrent sign-ins filled it and every other request queued behind ~50 ms hashes (profile p99
// 20 -> 204 ms). At most `ARGON2_SLOTS` hashes run at once: fewer than the pool's threads
// (file reads, DNS and compression also need one), and one core fewer than the machine has, so that
// the event loop and the database keep a core while people sign in. argon2 is CPU-bound: on the
// cores it gets, more hashes at once would not sign anyone in sooner.
const POOL_THREADS = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const ARGON2_SLOTS = Math.max(1, Math.min(availableParallelism() - 1, POOL_THREADS - 1));

let running = 0;
const waiting: Array<() => void> = [];

async function inSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= ARGON2_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    // Hand the slot straight to the next waiter (running stays the same), or free it.
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** argon2 operations in flight and queued (tests and metrics). */
export const argon2Load = () => ({ running, waiting: waiting.length, slots: ARGON2_SLOTS });

export const hashPassword = (password: string) => inSlot(() => hash(password, OPTIONS));

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await inSlot(() => verify(stored, password));
  } catch {
    return false;
  }
}

// Hashed once at start-up; verified against for unknown emails so that a wrong email costs as much
// time as a wrong password (no timing oracle for which addresses have accounts).
let dummy: Promise<string> | undefined;
export async function burnPasswordCheck(password: string): Promise<void> {
  dummy ??= hashPassword('dummy-password-for-timing-equalisation');
  await verifyPassword(await dummy, password);
}
