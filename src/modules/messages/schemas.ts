// Conversation and message shapes (spec 2.5).
import { z } from 'zod';
import { EmergencyNoticeSchema } from '../../lib/emergency-schema.ts';

export const MAX_CONTENT_LENGTH = 5000;

export const MessageSchema = z
  .object({
    id: z.uuid(),
    sender: z.uuid(),
    sender_type: z.enum(['USER', 'DOCTOR']),
    content: z.string(),
    file: z.string().nullable().meta({ description: 'Absolute URL of the authenticated download route, or null' }),
    is_read: z.boolean(),
    created_at: z.string(),
  })
  .meta({ id: 'Message' });

export const SentMessageSchema = MessageSchema.extend({ translation_enabled: z.boolean(), translation_default_on: z.boolean() });

const UserSummary = z.object({ id: z.uuid(), email: z.string(), first_name: z.string(), last_name: z.string(), locale: z.string() });

export const ConversationSchema = z
  .object({
    id: z.uuid(),
    user: UserSummary,
    created_at: z.string(),
    updated_at: z.string(),
    is_active: z.boolean(),
    pinned_at: z.string().nullable(),
    last_message: MessageSchema.nullable(),
    last_message_created_at: z.string().nullable(),
    last_message_sender_type: z.enum(['USER', 'DOCTOR']).nullable(),
    unread_count: z.number().int(),
    subscription_status: z.string(),
  })
  .meta({ id: 'Conversation' });

// The one emergency shape of every answer (src/lib/emergency-schema.ts).
export const EmergencySchema = EmergencyNoticeSchema;

export const SendResponseSchema = ConversationSchema.extend({
  user: UserSummary.extend({ country_of_residence: z.string().nullable() }),
  last_message: SentMessageSchema.nullable(),
  translation_target_lang: z.string(),
  emergency: EmergencySchema.nullable(),
});

export const ClinicianConversationSchema = ConversationSchema.extend({ flagged_at: z.string().nullable() });

// Longer text answers 400 `content_too_long` (service.ts), so the limit is published, not checked here.
export const SendJsonBody = z.object({ content: z.string().meta({ maxLength: MAX_CONTENT_LENGTH }).optional() }).meta({
  description: `JSON \`{content}\` (max ${MAX_CONTENT_LENGTH} characters), or multipart/form-data with \`file\` (PDF, JPEG, PNG, HEIC; max 10 MiB) and an optional \`content\` field`,
});

// The team's reply: the same two forms; text is required unless a file is sent (400 `content_required`).
export const ClinicianReplyJsonBody = z.object({ content: z.string().meta({ maxLength: MAX_CONTENT_LENGTH }).optional() }).meta({
  description: `JSON \`{content}\` (max ${MAX_CONTENT_LENGTH} characters), or multipart/form-data with \`file\` (PDF, JPEG, PNG, HEIC; max 10 MiB) and an optional \`content\` field`,
});

export const IdParams = z.object({ id: z.uuid() });
export const FileParams = z.object({ id: z.uuid(), message_id: z.uuid() });
