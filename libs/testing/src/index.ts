export {
  RawClient,
  RawClientClosedError,
  RawClientTimeoutError,
  type Registration,
  type RequestFields,
  bodyJson,
  outcomeOf,
  registrationOf,
} from './raw-client';
export { ServiceProcess, type ServiceProcessOptions, ServiceStartError } from './service-process';
