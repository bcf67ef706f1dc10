-- A call pass ends when its participant hangs up (a `bye` signal): its signalling stream closes and
-- the pass no longer reads or sends (joining again issues a new pass). docs/appointments.md.
alter table call_passes add column ended_at timestamptz;
