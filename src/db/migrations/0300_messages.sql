-- The patient's private conversation with the medical team, its messages and attached files.
create table conversations (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references users(id) on delete cascade,
  is_active boolean not null default true,
  pinned_at timestamptz,
  -- set when a patient message mentions an emergency; the team's list shows flagged threads first
  flagged_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

create table message_files (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  storage_key text not null unique,
  content_type text not null,
  extension text not null,
  size_bytes integer not null,
  created_at timestamptz not null default now()
);

create table messages (
  id uuid primary key default gen_random_uuid(),
  conversation_id uuid not null references conversations(id) on delete cascade,
  sender_id uuid not null references users(id),
  sender_type text not null check (sender_type in ('USER', 'DOCTOR')),
  content text not null default '',
  file_id uuid references message_files(id),
  is_read boolean not null default false,
  read_at timestamptz,
  flagged_emergency boolean not null default false,
  created_at timestamptz not null default now()
);
create index messages_conversation_idx on messages (conversation_id, created_at, id);
