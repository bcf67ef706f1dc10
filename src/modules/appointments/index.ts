// What other modules may use of appointments: nothing yet but its routes (registered in
// src/modules/index.ts). Only this module writes clinician_availability, appointments, call_passes
// and call_signals (docs/appointments.md).
export { default as appointmentRoutes } from './routes.ts';
export { turnCredentials, SLOT_MINUTES } from './service.ts';
