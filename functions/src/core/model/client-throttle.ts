/**
 * Failed client authentications at the token endpoint, per client id and caller: the recent
 * failures, and until when further attempts are refused. Stored by store/client-throttles; no I/O here.
 */
export interface Throttle {
  id: string;
  failures: Date[];
  refusedUntil: Date | null;
}
