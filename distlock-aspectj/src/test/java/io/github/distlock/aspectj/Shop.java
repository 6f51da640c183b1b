package io.github.distlock.aspectj;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/**
 * Locked methods that no proxy could lock: called from inside their own class, private, final or static. Each
 * answers what {@link LockContext} says it holds, after running what the test asks to run inside the lock.
 */
class Shop {

	static volatile Runnable inside = () -> {
	};

	String buyFromInside(String item) {
		return buy(item);
	}

	@DistributedLock(key = "#item", waitTime = "0s")
	public String buy(String item) {
		return held();
	}

	String restock(String item) {
		return restockPrivately(item);
	}

	@DistributedLock(name = "restock", key = "#item", waitTime = "0s")
	private String restockPrivately(String item) {
		return held();
	}

	@DistributedLock(name = "price", key = "#item", waitTime = "0s")
	final String price(String item) {
		return held();
	}

	@DistributedLock(name = "audit", key = "#day", waitTime = "0s")
	static String audit(String day) {
		return held();
	}

	@LockedByItem
	public String ship(String item) {
		return held();
	}

	private static String held() {
		inside.run();
		LockContext lock = LockContext.current();
		return lock.name() + "/" + lock.key();
	}

}
