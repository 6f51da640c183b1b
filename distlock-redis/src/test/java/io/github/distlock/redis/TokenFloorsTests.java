package io.github.distlock.redis;

import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token floor of a lock lies in the lock's hash slot on Redis Cluster (a script may touch one slot only), and is
 * one key for every lock elsewhere.
 */
class TokenFloorsTests {

	private final RedisLockKeys keys = new RedisLockKeys("distlock");

	@Test
	void onAClusterEveryLocksFloorIsInTheLocksSlotAndLocksOfOneSlotShareIt() {
		TokenFloors floors = new TokenFloors("distlock", true);
		Map<Integer, String> floorOfSlot = new HashMap<>();
		for (int i = 0; i < 20_000; i++) {
			String lockKey = this.keys.lockKey("orders", "order-" + i + (((i % 7) == 0) ? "{x}:\r\n" : ""));
			String floor = floors.of(lockKey);
			int slot = HashSlot.of(lockKey);
			assertThat(HashSlot.of(floor)).as(floor + " for " + lockKey).isEqualTo(slot);
			assertThat(floor).startsWith("distlock:{").endsWith("}:token");
			String before = floorOfSlot.putIfAbsent(slot, floor);
			assertThat(before).as("the floor of slot " + slot).isIn(null, floor);
		}
		assertThat(floorOfSlot.size()).as("20,000 keys fall in most slots").isGreaterThan(HashSlot.SLOTS / 2);
	}

	@Test
	void elsewhereOneFloorServesEveryLock() {
		TokenFloors floors = new TokenFloors("distlock", false);
		assertThat(floors.of(this.keys.lockKey("a", "1"))).isEqualTo("distlock:token")
			.isEqualTo(floors.of(this.keys.lockKey("b", "2")));
	}

}
