package io.github.distlock.sample.shop;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

import io.github.distlock.DistributedLock;

/**
 * Pays orders, so that a double-clicked "pay" button or a retried request never charges twice.
 */
@Service
public class PaymentService {

	private final Orders orders;

	public PaymentService(Orders orders) {
		this.orders = orders;
	}

	/**
	 * Pays an order once. The order passed in was read before the lock and may be out of date: only its id is
	 * trusted, and its status is read again under the lock.
	 */
	@DistributedLock(name = "order", key = "#order.id", lease = "10s", waitTime = "${sample.shop.lock-wait:5s}")
	@Transactional
	public Payment pay(Order order) {
		Order current = this.orders.get(order.id());
		if (current.status() == OrderStatus.PAID) {
			return new Payment(current, false);
		}
		// This is where a real shop calls its payment provider; the lock makes sure only one caller gets here for
		// an order, and the conditional update below is the database's own guard behind it.
		boolean charged = this.orders.markPaid(order.id());
		return new Payment(this.orders.get(order.id()), charged);
	}

}
