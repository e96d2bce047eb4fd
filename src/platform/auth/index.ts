export * from './auth-user';
export * from './request-context';
export * from './allow.decorator';
export * from './authenticator';
export * from './access.guard';
export * from './context.decorator';
