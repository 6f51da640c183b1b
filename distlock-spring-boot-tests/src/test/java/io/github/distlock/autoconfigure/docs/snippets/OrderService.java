package io.github.distlock.autoconfigure.docs.snippets;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;
import io.github.distlock.DistributedLockConfig;
import io.github.distlock.OnLost;

/** The annotation page's class-level defaults. */
@Service
@DistributedLockConfig(name = "orders", lease = "10s", waitTime = "0s", onLost = OnLost.INTERRUPT)
class OrderService {

	final List<String> done = new ArrayList<>();

	@DistributedLock(key = "#order.id")                       // "orders", 10s, no wait, INTERRUPT
	public void pay(Order order) { this.done.add("paid " + order.id()); }

	@DistributedLock(key = "#order.id", waitTime = "2s")      // "orders", 10s, waits up to 2s, INTERRUPT
	public void refund(Order order) { this.done.add("refunded " + order.id()); }

}
