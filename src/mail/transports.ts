// Where mail goes: SMTP (SMTP_URL) or, without it, one `.eml` file per mail in $DATA_DIR/outbox,
// written under a temporary name and renamed so that a reader never sees half a file.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';

export interface OutgoingMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close?(): void;
}

export function smtpTransport(url: string): MailTransport {
  // The URL inside the options object: given as createTransport's first argument, the second one is
  // message defaults and these timeouts would be ignored.
  const transporter = nodemailer.createTransport({ url, connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 10000 });
  return {
    async send(mail) {
      await transporter.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: `<${mail.id}@patient-treatment-service>` });
    },
    close: () => transporter.close(),
  };
}

export function fileTransport(dir: string): MailTransport {
  mkdirSync(dir, { recursive: true });
  const builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(mail) {
      const info = await builder.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text, messageId: `<${mail.id}@patient-treatment-service>` });
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
