package io.github.distlock.torture.check;

/**
 * What the keyspace recorder saw: a notification ({@code op} del, expired, expire...) for a lock key, or its own
 * {@code disconnected} and {@code subscribed} markers (then {@code key} is null).
 *
 * @param op the notification, or the marker
 * @param key the Redis key, or null for a marker
 * @param nanos when it arrived
 */
public record KeyspaceEvent(String op, String key, long nanos) {

}
