// What other modules may use of appointments: its routes (registered in src/modules/index.ts) and
// the account's appointments for the privacy module's export and erasure. Only this module writes clinician_availability, appointments, call_passes
// and call_signals (docs/appointments.md).
export { default as appointmentRoutes } from './routes.ts';
export { turnCredentials, SLOT_MINUTES } from './service.ts';
export { appointmentsOfAccount, eraseAccountAppointments } from './service.ts';
