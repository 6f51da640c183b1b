package io.github.distlock.testing.example;

import org.springframework.stereotype.Service;

import io.github.distlock.DistributedLock;
import io.github.distlock.LockContext;

/** Pays an order once: charged, then booked in the ledger with the lock's fencing token. */
@Service
public class OrderService {

	private final PaymentGateway gateway;

	private final Ledger ledger;

	public OrderService(PaymentGateway gateway, Ledger ledger) {
		this.gateway = gateway;
		this.ledger = ledger;
	}

	@DistributedLock(name = "order", key = "#orderId", lease = "10s")
	public void pay(String orderId) {
		long token = LockContext.current().token();
		this.gateway.charge(orderId);
		this.ledger.record(orderId, token);          // refuses a token older than one it booked
	}

}
