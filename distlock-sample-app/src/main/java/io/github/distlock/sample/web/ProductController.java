package io.github.distlock.sample.web;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import io.github.distlock.sample.shop.Product;
import io.github.distlock.sample.shop.Products;
import io.github.distlock.sample.shop.StockService;

/** Products and buying them. */
@RestController
@RequestMapping("/products")
public class ProductController {

	private final Products products;

	private final StockService stock;

	public ProductController(Products products, StockService stock) {
		this.products = products;
		this.stock = stock;
	}

	@GetMapping("/{sku}")
	public Product product(@PathVariable String sku) {
		return this.products.get(sku);
	}

	/**
	 * 201 with the order when bought; 409 when sold out or when the fencing token was stale (that one from
	 * {@link ShopExceptionHandler}).
	 */
	@PostMapping("/{sku}/buy")
	public ResponseEntity<PurchaseResponse> buy(@PathVariable String sku) {
		return PurchaseResponse.entity(this.stock.buy(sku));
	}

}
