export { checkCredentials, googleLogin, logout } from './service.ts';
