package io.github.distlock.autoconfigure

import io.github.distlock.DistributedLock
import io.github.distlock.LockAcquisitionException
import io.github.distlock.LockDefinitionException
import io.github.distlock.LockLostException
import io.github.distlock.LockLostListener
import io.github.distlock.LostLock
import io.github.distlock.ReactiveLockContext
import io.github.distlock.fixtures.redis.RedisExtension
import io.github.distlock.fixtures.redis.RespClient
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.flowOf
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.reactor.awaitSingle
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.extension.RegisterExtension
import org.springframework.aop.framework.AopProxyUtils
import org.springframework.context.ApplicationContext
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import java.time.Duration
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit

/**
 * Kotlin `suspend` functions annotated with `@DistributedLock` hold the lock until the coroutine completes, on a real
 * redis-server with two application instances. Spring's proxies run a suspend function as a `Mono`, so the lock is
 * the reactive one; these tests show it from the coroutine's side: completion, failure, cancellation, loss,
 * the token and reentrancy inside the coroutine.
 */
class CoroutineLockIntegrationTests {

	companion object {

		@JvmField
		@RegisterExtension
		val redis: RedisExtension = RedisExtension.anyServer()

		const val LOCK = "distlock:{coroutine:1}"

		val losses = LinkedBlockingQueue<LostLock>()

	}

	private val runner = LockContexts.onRedis(redis).withUserConfiguration(Beans::class.java)

	@BeforeEach
	fun clearLosses() {
		losses.clear()
	}

	@AfterEach
	fun noLockOutlivesItsTest() {
		assertThat(RedisKeys.removeLeftOver(redis)).`as`("lock keys left by the test").isEmpty()
	}

	@Configuration(proxyBeanMethods = false)
	open class Beans {

		@Bean
		open fun coroutineService() = CoroutineService()

		@Bean
		open fun recordingListener() = LockLostListener { losses.add(it) }

	}

	open class CoroutineService {

		var self: CoroutineService? = null

		@DistributedLock(key = "#id", name = "coroutine")
		open suspend fun hold(id: String, work: CompletableDeferred<String>): String = work.await()

		@DistributedLock(key = "#id", name = "coroutine", waitTime = "0s")
		open suspend fun tryNow(id: String): Long = ReactiveLockContext.current().awaitSingle().token()

		@DistributedLock(key = "#id", name = "coroutine", lease = "600ms")
		open suspend fun rollbackOnLoss(id: String, work: CompletableDeferred<String>): String = work.await()

		/** The token seen in the coroutine, and by a locked call for the same lock made from another dispatcher. */
		@DistributedLock(key = "#id", name = "coroutine")
		open suspend fun outerThenInner(id: String): List<Long> {
			val outer = ReactiveLockContext.current().awaitSingle().token()
			val inner = withContext(Dispatchers.Default) { self!!.tryNow(id) }
			return listOf(outer, inner)
		}

		/** A suspend function whose result is a Flow: held until the Flow is collected. */
		@DistributedLock(key = "#id", name = "coroutine")
		open suspend fun letters(id: String): Flow<String> = flow {
			emit("a")
			emit("held " + RedisKeys.exists(redis, LOCK))
		}

	}

	/** A Flow returned by a plain function is collected after the call: refused at start-up. */
	open class ColdFlow {

		@DistributedLock(key = "#id")
		open fun letters(id: String): Flow<String> = flowOf("a")

	}

	private fun service(context: ApplicationContext): CoroutineService {
		val service = context.getBean(CoroutineService::class.java)
		(AopProxyUtils.getSingletonTarget(service) as CoroutineService).self = service
		return service
	}

	private fun tryNow(service: CoroutineService): String = try {
		runBlocking { service.tryNow("1") }
		"acquired"
	}
	catch (ex: LockAcquisitionException) {
		"refused"
	}

	@Test
	fun theLockIsHeldUntilTheCoroutineCompletes() {
		runner.run { first ->
			runner.run { second ->
				val work = CompletableDeferred<String>()
				runBlocking {
					val result = async(Dispatchers.Default) { service(first).hold("1", work) }
					await().atMost(Duration.ofSeconds(10)).until { RedisKeys.exists(redis, LOCK) }
					assertThat(tryNow(service(second))).isEqualTo("refused")
					work.complete("done")
					assertThat(withTimeout(10_000) { result.await() }).isEqualTo("done")
				}
				assertThat(RedisKeys.exists(redis, LOCK)).`as`("released before the caller resumed").isFalse()
				assertThat(tryNow(service(second))).isEqualTo("acquired")
			}
		}
	}

	@Test
	fun anExceptionReleasesTheLockAndReachesTheCaller() {
		runner.run { context ->
			val work = CompletableDeferred<String>()
			work.completeExceptionally(IllegalStateException("payment declined"))
			val thrown = assertThrows<IllegalStateException> { runBlocking { service(context).hold("1", work) } }
			assertThat(thrown).hasMessage("payment declined")
			assertThat(RedisKeys.exists(redis, LOCK)).isFalse()
		}
	}

	@Test
	fun cancellingTheCoroutineReleasesTheLock() {
		runner.run { first ->
			runner.run { second ->
				runBlocking {
					val job = launch(Dispatchers.Default) { service(first).hold("1", CompletableDeferred()) }
					await().atMost(Duration.ofSeconds(10)).until { RedisKeys.exists(redis, LOCK) }
					assertThat(tryNow(service(second))).isEqualTo("refused")
					job.cancelAndJoin()
				}
				await().atMost(Duration.ofSeconds(10)).until { !RedisKeys.exists(redis, LOCK) }
				assertThat(tryNow(service(second))).isEqualTo("acquired")
			}
		}
	}

	@Test
	fun aLockLostBeforeTheCoroutineCompletesThrowsLockLostException() {
		runner.run { context ->
			val work = CompletableDeferred<String>()
			val thrown = assertThrows<LockLostException> {
				runBlocking {
					val result = async(Dispatchers.Default) { service(context).rollbackOnLoss("1", work) }
					await().atMost(Duration.ofSeconds(10)).until { RedisKeys.exists(redis, LOCK) }
					redis.client().use { client -> assertThat(client.call("DEL", LOCK)).isEqualTo(1L) }
					val loss = losses.poll(10, TimeUnit.SECONDS)
					assertThat(loss).`as`("a loss reported").isNotNull()
					work.complete("done")
					result.await()
				}
			}
			assertThat(thrown.reason).isEqualTo(LostLock.Reason.NOT_OWNED)
		}
	}

	@Test
	fun aLockedCallInsideTheCoroutineEntersItsLockOnAnotherDispatcher() {
		runner.run { context ->
			val tokens = runBlocking { service(context).outerThenInner("1") }
			assertThat(tokens[0]).isPositive()
			assertThat(tokens[1]).`as`("one acquisition: the inner call entered the outer lock").isEqualTo(tokens[0])
		}
	}

	@Test
	fun aSuspendFunctionReturningAFlowHoldsTheLockWhileItIsCollected() {
		runner.run { context ->
			val letters = runBlocking { service(context).letters("1").toList() }
			assertThat(letters).containsExactly("a", "held true")
			await().atMost(Duration.ofSeconds(10)).until { !RedisKeys.exists(redis, LOCK) }
		}
	}

	@Test
	fun aPlainFunctionReturningAFlowIsRefusedAtStartUp() {
		runner.withBean(ColdFlow::class.java).run { context ->
			assertThat(context).hasFailed()
			assertThat(context.startupFailure).rootCause()
				.isInstanceOf(LockDefinitionException::class.java)
				.hasMessageContaining("ColdFlow#letters")
				.hasMessageContaining("a cold Kotlin Flow")
		}
	}

}
