package io.github.distlock.sample;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import io.github.distlock.sample.ShopClient.Reply;
import io.github.distlock.sample.shop.Orders;
import io.github.distlock.sample.shop.Products;
import io.github.distlock.fixtures.redis.RespClient;
import io.github.distlock.testing.redis.EmbeddedRedisServer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shop over real HTTP, with its locks in a real Redis.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:shop-http-tests;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
				"sample.shop.lock-wait=1s" })
class ShopHttpTests extends OnRedisOfItsOwn {

	private static final String SNEAKER = "limited-sneaker";

	private static final String TICKET = "concert-ticket";

	@Autowired
	private Products products;

	@Autowired
	private Orders orders;

	@Autowired
	private JdbcTemplate jdbc;

	@Autowired
	private ApplicationContext context;

	private ShopClient client;

	@BeforeEach
	void restock() {
		this.client = new ShopClient(this.port);
		for (String sku : List.of(SNEAKER, TICKET)) {
			this.orders.deleteBySku(sku);
			this.products.restock(sku, 20);
		}
	}

	@Test
	void usesTheConfiguredRedisAndStartsNoneOfItsOwn() {
		assertThat(this.context.getBeansOfType(EmbeddedRedisServer.class)).isEmpty();
	}

	@Test
	void concurrentBuyersSellExactlyTheStockAndNeverMore() throws Exception {
		int buyers = 8;
		ExecutorService pool = Executors.newFixedThreadPool(buyers);
		try {
			CountDownLatch gate = new CountDownLatch(1);
			List<Future<List<Reply>>> futures = new ArrayList<>();
			for (int i = 0; i < buyers; i++) {
				futures.add(pool.submit(() -> {
					gate.await();
					return buyUntilSoldOut(SNEAKER);
				}));
			}
			gate.countDown();
			List<Reply> replies = new ArrayList<>();
			for (Future<List<Reply>> future : futures) {
				replies.addAll(future.get(60, TimeUnit.SECONDS));
			}
			List<Reply> sold = replies.stream().filter((reply) -> reply.status() == 201).toList();
			assertThat(sold).hasSize(20);
			assertThat(replies).allSatisfy((reply) -> {
				assertThat(reply.status()).as("%s", reply).isIn(201, 409, 503);
				if (reply.status() != 503) {
					assertThat(reply.<Integer>json("$.stockLeft")).isGreaterThanOrEqualTo(0);
				}
			});
			assertThat(replies.stream().filter((reply) -> reply.status() == 409))
				.allSatisfy((reply) -> assertThat(reply.<String>json("$.outcome")).isEqualTo("SOLD_OUT"));
			List<Long> tokens = sold.stream().map((reply) -> reply.<Number>json("$.fencingToken").longValue()).toList();
			assertThat(new HashSet<>(tokens)).as("one lock acquisition per sale").hasSize(20);
			assertThat(this.client.get("/products/" + SNEAKER).<Integer>json("$.stock")).isZero();
			assertThat(this.orders.countBySku(SNEAKER)).isEqualTo(20);
			assertThat(this.client.get("/products/" + SNEAKER).<Number>json("$.lastToken").longValue())
				.isEqualTo(Collections.max(tokens));
		}
		finally {
			pool.shutdownNow();
		}
	}

	/** Buys until the shop says sold out; a 503 (lock busy) is retried, as a client would. */
	private List<Reply> buyUntilSoldOut(String sku) {
		List<Reply> replies = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			Reply reply = this.client.post("/products/" + sku + "/buy");
			replies.add(reply);
			if (reply.status() == 409) {
				return replies;
			}
		}
		throw new AssertionError("Never sold out after 100 purchases: " + replies);
	}

	@Test
	void payingAnOrderManyTimesAtOnceChargesItOnce() throws Exception {
		Reply bought = this.client.post("/products/" + TICKET + "/buy");
		assertThat(bought.status()).as("%s", bought).isEqualTo(201);
		long orderId = bought.<Number>json("$.orderId").longValue();
		assertThat(bought.header("Location")).isEqualTo("/orders/" + orderId);
		int payers = 6;
		ExecutorService pool = Executors.newFixedThreadPool(payers);
		try {
			CountDownLatch gate = new CountDownLatch(1);
			List<Future<Reply>> futures = new ArrayList<>();
			for (int i = 0; i < payers; i++) {
				futures.add(pool.submit(() -> {
					gate.await();
					return this.client.post("/orders/" + orderId + "/pay");
				}));
			}
			gate.countDown();
			List<Reply> replies = new ArrayList<>();
			for (Future<Reply> future : futures) {
				replies.add(future.get(30, TimeUnit.SECONDS));
			}
			assertThat(replies).allSatisfy((reply) -> {
				assertThat(reply.status()).as("%s", reply).isEqualTo(200);
				assertThat(reply.<String>json("$.order.status")).isEqualTo("PAID");
			});
			assertThat(replies.stream().filter((reply) -> reply.<Boolean>json("$.charged"))).hasSize(1);
		}
		finally {
			pool.shutdownNow();
		}
		assertThat(this.client.get("/orders/" + orderId).<String>json("$.status")).isEqualTo("PAID");
	}

	@Test
	void unknownProductsAndOrdersAreNotFound() {
		Reply product = this.client.post("/products/no-such-thing/buy");
		assertThat(product.status()).isEqualTo(404);
		assertThat(product.<String>json("$.detail")).contains("no-such-thing");
		assertThat(this.client.post("/orders/987654/pay").status()).isEqualTo(404);
		assertThat(this.client.get("/orders/987654").status()).isEqualTo(404);
	}

	@Test
	void aWriteWithAStaleFencingTokenIsRefusedAndChangesNothing() {
		// As if a later lock holder had already written: every token this buyer can get is smaller.
		this.jdbc.update("UPDATE product SET last_token = ? WHERE sku = ?", Long.MAX_VALUE, TICKET);
		Reply reply = this.client.post("/products/" + TICKET + "/buy");
		assertThat(reply.status()).as("%s", reply).isEqualTo(409);
		assertThat(reply.<String>json("$.outcome")).isEqualTo("STALE_TOKEN");
		assertThat(reply.<Integer>json("$.stockLeft")).isEqualTo(20);
		assertThat(this.products.get(TICKET).stock()).isEqualTo(20);
		assertThat(this.orders.countBySku(TICKET)).isZero();
	}

	@Test
	void aLockHeldByAnotherInstanceAnswers503AndChangesNothing() {
		String lockKey = "distlock:{stock:" + TICKET + "}";
		try (RespClient raw = redis.client()) {
			// Another instance holds the product's lock for longer than this one waits (sample.shop.lock-wait=1s).
			assertThat(raw.call("SET", lockKey, "other-instance|1", "PX", "15000", "NX")).isEqualTo("OK");
			try {
				Reply reply = this.client.post("/products/" + TICKET + "/buy");
				assertThat(reply.status()).as("%s", reply).isEqualTo(503);
				assertThat(reply.header("Retry-After")).isEqualTo("1");
				assertThat(reply.<String>json("$.lock")).isEqualTo("stock:" + TICKET);
				assertThat(this.products.get(TICKET).stock()).isEqualTo(20);
			}
			finally {
				raw.call("DEL", lockKey);
			}
		}
		assertThat(this.client.post("/products/" + TICKET + "/buy").status()).isEqualTo(201);
	}

	@Test
	void theUnlockedPurchaseIsServedOnlyToTheTwoProcessDemo() {
		assertThat(this.client.post("/demo/unlocked/products/" + TICKET + "/buy").status()).isEqualTo(404);
		assertThat(this.products.get(TICKET).stock()).isEqualTo(20);
	}

	@Test
	void actuatorExposesHealthAndMetricsOnly() {
		Reply health = this.client.get("/actuator/health");
		assertThat(health.status()).isEqualTo(200);
		assertThat(health.<String>json("$.status")).isEqualTo("UP");
		Reply metrics = this.client.get("/actuator/metrics");
		assertThat(metrics.status()).isEqualTo(200);
		assertThat(metrics.<List<String>>json("$.names")).contains("hikaricp.connections");
		assertThat(this.client.get("/actuator/env").status()).isEqualTo(404);
	}

}
