package io.github.distlock.sample.demo;

import io.github.distlock.sample.shop.Purchase;

/** One way to buy an item on one application instance. */
@FunctionalInterface
interface Buyer {

	Purchase buy(String sku);

}
