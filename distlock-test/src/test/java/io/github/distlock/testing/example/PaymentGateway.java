package io.github.distlock.testing.example;

import org.springframework.stereotype.Component;

/** Charges a customer; a stand-in for a remote call, replaced by a mock in the example test. */
@Component
public class PaymentGateway {

	public void charge(String orderId) {
	}

}
