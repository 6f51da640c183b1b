package io.github.distlock.autoconfigure.docs.snippets;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;

/** The README's first lines: one annotated method. */
@Service
class IntroOrderService {

	final List<String> paid = new ArrayList<>();

	@DistributedLock(key = "#order.id", lease = "10s")
	public void pay(Order order) { this.paid.add(order.id()); }

}
