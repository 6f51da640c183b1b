package io.github.distlock.sample.web;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.distlock.sample.shop.Order;
import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Payment;
import io.github.distlock.sample.shop.PaymentService;

/** Orders and paying them. */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final Orders orders;

	private final PaymentService payments;

	public OrderController(Orders orders, PaymentService payments) {
		this.orders = orders;
		this.payments = payments;
	}

	@GetMapping("/{id}")
	public Order order(@PathVariable long id) {
		return this.orders.get(id);
	}

	/** Pays the order; paying a paid order again succeeds and charges nothing ({@code charged} is false). */
	@PostMapping("/{id}/pay")
	public Payment pay(@PathVariable long id) {
		return this.payments.pay(this.orders.get(id));
	}

}
