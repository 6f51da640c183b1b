package io.github.distlock.redis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import io.github.distlock.fixtures.redis.RedisExtension;
import io.github.distlock.fixtures.redis.RespClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code try.lua} on a real Redis, sent as the engine sends it, with its three answers: a free lock taken (the token,
 * stored with the holder and the lease, the floor raised to it), the same try sent again after its answer was lost
 * (minus the same token, nothing changed), and a lock another holder has (0, nothing changed).
 */
class TryScriptIntegrationTests {

	@RegisterExtension
	static final RedisExtension redis = RedisExtension.anyServer();

	private static final String LOCK = "distlock:{try:script}";

	private static final String FLOOR = "distlock:{try:script}:token";

	@AfterEach
	void clean() {
		try (RespClient client = redis.client()) {
			client.call("DEL", LOCK, FLOOR);
		}
	}

	private static long tryLock(RespClient client, String holderPrefix) {
		return (Long) client.call("EVAL", LockScripts.TRY.text(), 2, LOCK, FLOOR, holderPrefix, 5000);
	}

	@Test
	void aFreeLockIsTakenWithItsTokenAndTheSameTrySentAgainFindsItsOwn() {
		try (RespClient client = redis.client()) {
			long token = tryLock(client, "0123456789abcdef:1|");
			assertThat(token).isPositive();
			assertThat(client.get(LOCK)).isEqualTo("0123456789abcdef:1|" + token);
			assertThat((Long) client.call("PTTL", LOCK)).isBetween(1L, 5000L);
			assertThat(client.get(FLOOR)).as("the floor follows the grant").isEqualTo(Long.toString(token));

			assertThat(tryLock(client, "0123456789abcdef:1|")).as("sent again: its own, minus its token")
				.isEqualTo(-token);
			assertThat(client.get(LOCK)).isEqualTo("0123456789abcdef:1|" + token);
		}
	}

	@Test
	void aLockAnotherHolderHasIsRefusedAndLeftAsItWas() {
		try (RespClient client = redis.client()) {
			long token = tryLock(client, "0123456789abcdef:1|");
			// Another holder of the same engine, whose prefix begins like the first's.
			assertThat(tryLock(client, "0123456789abcdef:12|")).isZero();
			assertThat(tryLock(client, "fedcba9876543210:1|")).isZero();
			assertThat(client.get(LOCK)).isEqualTo("0123456789abcdef:1|" + token);
			assertThat(client.get(FLOOR)).as("no token issued").isEqualTo(Long.toString(token));
		}
	}

}
