/**
 * Whether a COMMAND or LOGOUT admitted under `(session, request)` may be applied when its
 * journal entry is reached. Anything but `ok` means the table moved on since admission
 * (the session was fenced, evicted, expired or logged out, or the number was taken):
 * the engine applies nothing for it and answers with the matching status.
 */
export type ApplicableResult = 'ok' | 'no-session' | 'session-too-low' | 'epoch-ahead' | 'not-next';
