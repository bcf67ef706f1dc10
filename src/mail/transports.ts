// Where mail goes: SMTP (SMTP_URL) or, without it, one `.eml` file per mail in $DATA_DIR/outbox,
// written under a temporary name and renamed so that a reader never sees half a file.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';

export interface OutgoingMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  /** Files sent with the mail (an appointment's calendar file). */
  attachments?: { filename: string; content_type: string; content: string; encoding?: 'base64' }[];
}

const attachmentsOf = (mail: OutgoingMail) => mail.attachments?.map((a) => ({ filename: a.filename, contentType: a.content_type, content: a.content, ...(a.encoding ? { encoding: a.encoding } : {}) }));

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close?(): void;
}

// nodemailer is loaded by the first mail, not at start-up: readiness does not need it.
const nodemailer = async () => (await import('nodemailer')).default;

export function smtpTransport(url: string): MailTransport {
  // One transporter, made by the first mail (a promise, so that mails sent together share it).
  let transporter: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      // The URL inside the options object: given as createTransport's first argument, the second
      // one is message defaults and these timeouts would be ignored.
      transporter ??= nodemailer().then((n) => n.createTransport({ url, connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10000 }));
      await (await transporter).sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, attachments: attachmentsOf(mail), messageId: `<${mail.id}@patient-treatment-service>` });
    },
    close: () => void transporter?.then((t) => t.close()),
  };
}

export function fileTransport(dir: string): MailTransport {
  mkdirSync(dir, { recursive: true });
  let builder: Promise<Transporter> | undefined;
  return {
    async send(mail) {
      builder ??= nodemailer().then((n) => n.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }));
      const info = await (await builder).sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, attachments: attachmentsOf(mail), messageId: `<${mail.id}@patient-treatment-service>` });
      const name = `${Date.now()}-${mail.id}.eml`;
      const tmp = join(dir, `.${name}.tmp`);
      writeFileSync(tmp, info.message as Buffer);
      renameSync(tmp, join(dir, name));
    },
  };
}

/** Keeps mails in memory (tests). */
export function memoryTransport(): MailTransport & { sent: OutgoingMail[] } {
  const sent: OutgoingMail[] = [];
  return {
    sent,
    send(mail) {
      sent.push(mail);
      return Promise.resolve();
    },
  };
}
