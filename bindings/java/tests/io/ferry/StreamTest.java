package io.ferry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

/**
 * Streams (ferry_cuda_stream, a cudaStream_t) cross the binding as long. The CPU backend accepts
 * streams and ignores them, so this checks every stream argument on any machine.
 */
class StreamTest {
  private static final long STREAM = 0x7f0012345678L; // shaped like a cudaStream_t, never used on the CPU

  @Test
  void theHandoffStreamFieldIsALong() {
    try (SubmitOptions options = new SubmitOptions()) {
      assertEquals(0L, options.getHandoffStream());
      options.setHandoffStream(STREAM);
      assertEquals(STREAM, options.getHandoffStream());
    }
  }

  @Test
  void aHandoffStreamNeedsHasHandoffStream() {
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setShape(1, 2, 2, 3);
         SubmitOptions options = new SubmitOptions()) {
      options.setHandoffStream(STREAM);
      FerryException.InvalidArgument e = assertThrows(FerryException.InvalidArgument.class,
          () -> ctx.submit(source, new byte[12], null, null, options));
      assertTrue(e.getMessage().contains("has_handoff_stream is 0"), e.getMessage());
    }
  }

  @Test
  void everyStreamArgumentTakesALong() {
    byte[] data = new byte[2 * 4 * 5 * 3];
    for (int i = 0; i < data.length; ++i) data[i] = (byte) (i * 37);
    try (Context ctx = FerryTest.cpuContext(); Source source = new Source().setShape(2, 4, 5, 3);
         Transform t = new Transform(); SubmitOptions options = new SubmitOptions();
         Output output = new Output()) {
      options.setHasHandoffStream(1);
      options.setHandoffStream(STREAM);
      try (Batch batch = ctx.submit(source, data, t, null, options)) {
        batch.await();
        batch.streamWait(STREAM);
      }
      long in = ctx.deviceAlloc(data.length, STREAM);
      long out = ctx.deviceAlloc(data.length * 4L, STREAM);
      Ferry.asByteBuffer(in, data.length).put(data);
      source.setData(in);
      source.setBytes(data.length);
      output.setData(out);
      output.setBytes(data.length * 4L);
      ctx.convert(source, t, output, STREAM);
      FloatBuffer x = Ferry.asByteBuffer(out, data.length * 4L).order(ByteOrder.nativeOrder()).asFloatBuffer();
      assertEquals((data[3] & 0xff) / 255.0f, x.get(1), 1e-6f); // NCHW [0][0][0][1] is NHWC byte 3
      ctx.deviceFree(in, STREAM);
      ctx.deviceFree(out, STREAM);
      ctx.hostFreeOnStream(ctx.hostAlloc(64), STREAM);
    }
  }
}
