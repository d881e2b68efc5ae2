console.log('once: service entry point pending');
