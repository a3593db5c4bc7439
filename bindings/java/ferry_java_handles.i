/* ferry bindings, Java: the Java side of Context, Batch and Source: public
 * submit overloads that keep their inputs reachable until the batch is
 * closed, direct ByteBuffer and byte[] sources. */

%rename(submitNative) ferry_context_s::submit;
%javamethodmodifiers ferry_context_s::submit "private";
%rename(submitBytesNative) ferry_context_s::submit_and_wait_source;
%javamethodmodifiers ferry_context_s::submit_and_wait_source "private";

%typemap(javainterfaces) ferry_context_s "AutoCloseable"
%typemap(javacode) ferry_context_s %{
  /** Destroys the context (waits for its batches, frees all it owns). Idempotent. */
  @Override
  public void close() { delete(); }

  /**
   * Submits a batch; returns at once. The source's memory (a direct ByteBuffer set with
   * {@link Source#setBuffer}, or addresses) is read asynchronously: keep it unchanged until
   * {@link Batch#sourceReusable()} or {@link Batch#waitSource()}. The batch keeps the source,
   * transform, output and this context reachable until it is closed.
   * transform, output and options may be null for the defaults.
   */
  public Batch submit(Source source, Transform transform, Output output, SubmitOptions options) {
    Batch batch = submitNative(source, transform, output, options);
    batch.keepAlive = new Object[] {this, source, source == null ? null : source.buffer, transform, output};
    return batch;
  }

  public Batch submit(Source source, Transform transform) { return submit(source, transform, null, null); }

  public Batch submit(Source source) { return submit(source, null, null, null); }

  /**
   * Submits a batch whose pixels are a Java byte[]: the array is pinned (or copied by the JVM)
   * only during this call, which therefore returns once ferry has read the source
   * (ferry_batch_wait_source). The conversion may still be running: wait on the batch.
   * The source describes the shape and strides; its data is ignored.
   */
  public Batch submit(Source source, byte[] data, Transform transform, Output output, SubmitOptions options) {
    Batch batch = submitBytesNative(source, data, transform, output, options);
    batch.keepAlive = new Object[] {this, transform, output};
    return batch;
  }

  public Batch submit(Source source, byte[] data, Transform transform) {
    return submit(source, data, transform, null, null);
  }
%}

%typemap(javainterfaces) ferry_batch_s "AutoCloseable"
%typemap(javacode) ferry_batch_s %{
  Object[] keepAlive;

  /** Releases the batch (ferry_batch_release). Idempotent. */
  @Override
  public void close() {
    delete();
    keepAlive = null;
  }
%}

%typemap(javainterfaces) ferry_source "AutoCloseable"
%typemap(javacode) ferry_source %{
  java.nio.ByteBuffer buffer;

  /** Frees the native descriptor. Idempotent. */
  @Override
  public void close() { delete(); }

  /**
   * Uses a direct ByteBuffer (from its position to its limit) as the batch's pixels, without a
   * copy. The buffer stays reachable while this Source or a Batch made from it is open.
   */
  public Source setBuffer(java.nio.ByteBuffer buffer) {
    long address = Ferry.directBufferAddress(buffer);
    setData(address + buffer.position());
    setBytes(buffer.remaining());
    clearSamples();
    this.buffer = buffer;
    return this;
  }

  /** Shape of the batch: n images of h x w x c (layout NHWC unless set). */
  public Source setShape(long n, long h, long w, long c) {
    setN(n); setH(h); setW(w); setC(c);
    return this;
  }
%}
