package io.github.distlock.autoconfigure.docs.snippets;

import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Service;

/** The annotation page's method locked by the composed {@link OrderLock}. */
@Service
class OrderLockUser {

	final List<String> paid = new ArrayList<>();

	@OrderLock("#order.id")                       // lock "order", key = the order's id, lease 10s
	public void pay(Order order) { this.paid.add(order.id()); }

}
