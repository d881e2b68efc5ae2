export { type NatsSecurityOptions, type NatsTlsOptions } from './nats-security-options';
export { type NatsSecuritySettings, readNatsSecurity } from './read-nats-security';
export { type NatsConnectPlan, natsConnectPlan } from './nats-connect-plan';
export { NatsSecurityError } from './nats-security.error';
export { NatsAuthFailedError, refusesCredentials } from './nats-auth-failed.error';
export {
  NatsStatusLog,
  type NatsStatusLine,
  type NatsStatusLogOptions,
  describeNatsStatus,
} from './nats-status-log';
